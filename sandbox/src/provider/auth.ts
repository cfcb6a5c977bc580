import type { RequestHandler } from 'express';
import { failed } from '../http/envelope';

/** Sandbox mode: any non-empty secret key in `mono-sec-key` is accepted. */
export function requireSecretKey(clock: () => Date): RequestHandler {
  return (req, res, next) => {
    const key = req.header('mono-sec-key');
    if (key && key.trim() !== '') return next();
    res.status(401).json(failed(clock(), 'Unauthorized: missing mono-sec-key header'));
  };
}

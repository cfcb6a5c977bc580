export * from './config';
export * from './service';
export { createHttpBureau } from './data-access/bureau/httpBureau';

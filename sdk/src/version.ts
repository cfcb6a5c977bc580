/** This package's version, sent in `user-agent`; a unit test holds it to package.json. */
export const VERSION = '0.1.0';

export * from './mono';
export * from './types';

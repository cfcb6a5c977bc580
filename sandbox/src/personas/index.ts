export * from './catalog';
export * from './generateAccount';
export * from './income';
export * from './insights';
export * from './institutions';
export * from './nuban';
export * from './prng';
export * from './types';

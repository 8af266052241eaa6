export * from './common.js';
export * from './read.js';
export * from './write.js';
export * from './query.js';
export * from './errors.js';

/** Public API of the core runner (no `vscode` import anywhere under src/core). */
export * from './argv';
export * from './defaults';
export * from './docker';
export * from './engineFlags';
export * from './errors';
export * from './labels';
export * from './limits';
export * from './loosening';
export * from './mounts';
export * from './output';
export * from './profile';
export * from './profiles';
export * from './reaper';
export * from './result';
export * from './runner';
export * from './snippet';
export * from './warm';

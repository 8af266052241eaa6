import type { RegisterCommand } from './main.js';

export const register: RegisterCommand = (program) => {
  program.command('emulator').description('serve the local implementation of /v1');
};

/** Output paths of file-based destinations: resolved against the YAML file, parents created. */
import { access, constants, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { FerryError, messageOf } from '../../../src/sdk/index.js';

export function outputPath(path: string, baseDir: string): string {
  return resolve(baseDir, path);
}

/** Create the file's folder and check it can be written, with a destination error naming the path. */
export async function prepareFolder(file: string, destination: string, exportName: string): Promise<void> {
  const folder = dirname(file);
  try {
    await mkdir(folder, { recursive: true });
    await access(folder, constants.W_OK);
  } catch (cause) {
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `${destination}: cannot write to ${folder}: ${messageOf(cause)}`, {
      where: `export ${exportName}`,
      hint: 'paths resolve against the directory of the YAML file that declares the export; check permissions',
      cause,
      details: { path: file },
    });
  }
}

/**
 * `ferry check`: the file could be created, without creating anything. The
 * folder may not exist yet (open() creates it), so the nearest existing
 * ancestor must be writable.
 */
export async function checkWritable(file: string, destination: string, exportName: string): Promise<void> {
  let folder = dirname(file);
  while (!(await exists(folder)) && dirname(folder) !== folder) folder = dirname(folder);
  const target = (await exists(file)) ? file : folder;
  try {
    await access(target, constants.W_OK);
  } catch (cause) {
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `${destination}: ${target} is not writable`, { where: `export ${exportName}`, cause });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

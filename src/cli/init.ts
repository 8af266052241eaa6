/** `ferry init [dir]`: scaffold a project that runs against the embedded emulator as is. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { FerryError } from '../sdk/errors.js';
import { ferryRoot } from '../sdk/ferry-package.js';
import { SOURCE_TEMPLATES } from './init-source-templates.js';
import { ENV_EXAMPLE, GITIGNORE, PROJECT_FILE, SCAFFOLD } from './init-templates.js';
import type { RegisterCommand } from './main.js';

export interface InitResult {
  dir: string;
  written: string[];
}

/** The templates `--template` takes: csv (the default: CRM deals as rows) and one per conversation-native source. */
export const TEMPLATE_NAMES = ['csv', ...Object.keys(SOURCE_TEMPLATES)] as const;

function filesOf(template: string): readonly { path: string; content: string }[] {
  if (template === 'csv') return SCAFFOLD;
  const files = SOURCE_TEMPLATES[template];
  if (!files) {
    throw new FerryError('FERRY_USAGE', `no init template named "${template}"`, { hint: `templates: ${TEMPLATE_NAMES.join(', ')}` });
  }
  return [{ path: 'ferry.yaml', content: PROJECT_FILE }, ...files, { path: '.env.example', content: ENV_EXAMPLE }, { path: '.gitignore', content: GITIGNORE }];
}

/** Write the scaffold into `dir`; refuses (listing them) to overwrite existing files unless `force`. */
export function scaffoldProject(dir: string, options: { force?: boolean; template?: string } = {}): InitResult {
  const root = resolve(dir);
  const scaffold = filesOf(options.template ?? 'csv');
  // The JSON Schema the YAML files' `yaml-language-server: $schema=` lines point at, as this ferry ships it.
  const files = [...scaffold, { path: 'ferry.schema.json', content: readFileSync(join(ferryRoot(), 'ferry.schema.json'), 'utf8') }];
  const existing = files.map((f) => f.path).filter((path) => existsSync(join(root, path)));
  if (existing.length > 0 && !options.force) {
    throw new FerryError('FERRY_USAGE', `not overwriting existing files in ${root}:\n${existing.map((p) => `  ${p}`).join('\n')}`, {
      hint: 'pass --force to overwrite them, or init into another directory',
      details: { existing },
    });
  }
  for (const file of files) {
    const target = join(root, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  return { dir: root, written: files.map((f) => f.path) };
}

export const register: RegisterCommand = (command) => {
  command
    .argument('[dir]', 'project directory (created if missing)', '.')
    .option('--force', 'overwrite files that already exist')
    .option('--template <name>', `the example sync: ${TEMPLATE_NAMES.join(', ')}`, 'csv')
    .action((dir: string, opts: { force?: boolean; template: string }) => {
      const result = scaffoldProject(dir, { force: opts.force === true, template: opts.template });
      const shown = relative(process.cwd(), result.dir) || '.';
      console.log(`Created a ferry project in ${shown}:`);
      for (const path of result.written) console.log(`  ${path}`);
      console.log('\nNext steps:');
      if (shown !== '.') console.log(`  cd ${shown}`);
      console.log('  ferry check              # validate the config, reach the source and the service');
      console.log('  ferry preview example    # see the request bodies the example sync would send');
      console.log(`  ferry run                # push the sample ${opts.template === 'csv' ? 'deals' : 'files'} to the embedded emulator`);
      console.log('  ferry status             # what the last run did');
    });
};

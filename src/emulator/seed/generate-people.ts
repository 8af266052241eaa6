/** Names, slugs and e-mail addresses of the people the generated seed invents. */
import type { Rng } from './generate-random.js';
import type { SeedContactInput } from './format.js';

const FIRST_NAMES = [
  'Ava', 'Ben', 'Chloe', 'Daniel', 'Elena', 'Farid', 'Grace', 'Hiro', 'Isabel', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Noah',
  'Olivia', 'Pablo', 'Quinn', 'Rosa', 'Samir', 'Tara', 'Uma', 'Victor', 'Wen', 'Yusuf', 'Zoe',
] as const;
const LAST_NAMES = [
  'Abbott', 'Becker', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Haddad', 'Ivanova', 'Jensen', 'Kowalski', 'Larsen',
  'Moreau', 'Nakamura', 'Okafor', 'Patel', 'Quintero', 'Rossi', 'Schmidt', 'Tanaka', 'Underwood', 'Varga', 'Weber', 'Yilmaz',
] as const;
const TITLES = [
  'Chief Executive Officer', 'Chief Financial Officer', 'Head of Procurement', 'IT Director', 'Operations Manager',
  'Purchasing Manager', 'VP Engineering', 'Facilities Manager',
] as const;

/** `Acme Corporation` → `acme-corporation` (accents dropped, anything else non-alphanumeric becomes a dash). */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `Moses Frase` → `moses.frase`; `Professor B` → `professor.b`. */
export function emailLocalPart(name: string): string {
  return slugify(name).replace(/-/g, '.');
}

export const emailOf = (name: string, domain: string): string => `${emailLocalPart(name)}@${domain}`;

/** 2–4 invented contacts at a company whose e-mail domain is `domain`. */
export function inventContacts(rng: Rng, domain: string): Required<SeedContactInput>[] {
  const count = rng.int(2, 4);
  const names = new Set<string>();
  while (names.size < count) names.add(`${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`);
  return [...names].map((name) => ({
    name,
    email: emailOf(name, domain),
    title: rng.pick(TITLES),
    phone: `+1-555-01${String(rng.int(0, 99)).padStart(2, '0')}`,
  }));
}

/** RFC 5322 address lists and quoted-printable bodies, as far as mailboxes in the field need. */

// A type alias, not an interface, so it fits SourceData's index signature.
export type Address = {
  name: string | null;
  email: string | null;
};

/** Split on commas that are outside quotes and angle brackets. */
function splitAddresses(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '<') depth++;
    else if (!quoted && ch === '>') depth = Math.max(0, depth - 1);
    if (ch === ',' && !quoted && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

const EMAIL = /[^\s<>"(),;:]+@[^\s<>"(),;:]+/;

/**
 * Parse `"Allen, Phillip K." <pallen@enron.com>, john@x.com (John)` into
 * name/e-mail pairs. Odd forms (`undisclosed-recipients:;`, X.500 names) keep
 * their text as the name with no e-mail.
 */
export function parseAddressList(text: string): Address[] {
  return splitAddresses(text).map((part) => {
    const angle = /<([^>]*)>/.exec(part);
    if (angle) {
      const email = EMAIL.test(angle[1] ?? '') ? angle[1]!.trim() : null;
      const name = part.slice(0, angle.index).replace(/^"|"$/g, '').trim().replace(/^"|"$/g, '');
      return { name: name || null, email };
    }
    const bare = EMAIL.exec(part);
    if (bare) {
      const comment = /\(([^)]*)\)/.exec(part)?.[1]?.trim();
      return { name: comment || null, email: bare[0] };
    }
    return { name: part.replace(/[;:]+$/, '') || null, email: null };
  });
}

/** Decode a quoted-printable body: `=XX` escapes and `=` soft line breaks. */
export function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const ch = joined[i]!;
    const hex = ch === '=' ? joined.slice(i + 1, i + 3) : '';
    if (hex.length === 2 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      const code = ch.charCodeAt(0);
      if (code < 0x80) bytes.push(code);
      else bytes.push(...Buffer.from(ch, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

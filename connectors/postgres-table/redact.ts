/** Connection URLs in messages: the password never appears. */

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** A driver message with the password (raw and URL-decoded) replaced, in case a driver echoes it. */
export function redactMessage(message: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    // unparsable URL: nothing to look for beyond the URL itself
  }
  let out = message.replaceAll(url, redactUrl(url));
  for (const secret of new Set([password, safeDecode(password)])) {
    if (secret.length > 0) out = out.replaceAll(secret, '***');
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

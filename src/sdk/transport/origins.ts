/**
 * Credentials belong to an origin: the scheme, host and port of the base URL
 * they were configured for. Every URL a request goes to — the first one, a
 * redirect, a next link, a `Link` header, a child stream's absolute path — is
 * checked here before it is sent:
 *
 * - the home origin (and origins listed as trusted) get the credentials;
 * - origins the user allowed get the request **without** credentials;
 * - any other origin, and a step from https down to http, is refused with an
 *   error that names the URL and the option that would allow it.
 */
import { FerryError } from '../errors.js';

/** What may be done at a URL. */
export type OriginVerdict = 'credentials' | 'anonymous';

export interface OriginPolicyOptions {
  /** The base URL the credentials were configured for. */
  home: string | URL;
  /** Other origins requests may follow to, without credentials (`https://cdn.example.com`). */
  allowed?: readonly string[];
  /** Of those (or besides them), origins that get the credentials too. */
  trusted?: readonly string[];
  /** The option a user sets to allow an origin, named in the refusal (`allowedOrigins`). @default 'allowedOrigins' */
  option?: string;
  /** Where in the config the policy comes from, for the refusal (`sync x, stream y`). */
  where?: string;
  /** No other origin can be allowed (the service client, an OAuth token endpoint): the refusal says to fix the base URL instead. */
  homeOnly?: boolean;
}

/** The normalised origin of a URL or origin string (`https://api.example.com:8443`); throws on a non-URL. */
export function originOf(url: string | URL): string {
  return (typeof url === 'string' ? new URL(url) : url).origin;
}

/** Decides, per URL, whether a request may go there and with which credentials (see the module comment). */
export class OriginPolicy {
  readonly home: string;
  private readonly allowed: ReadonlySet<string>;
  private readonly trusted: ReadonlySet<string>;
  private readonly option: string | undefined;
  private readonly where: string | undefined;

  constructor(options: OriginPolicyOptions) {
    this.home = originOf(options.home);
    this.trusted = new Set((options.trusted ?? []).map(originOf));
    this.allowed = new Set([...(options.allowed ?? []).map(originOf), ...this.trusted]);
    this.option = options.homeOnly === true ? undefined : (options.option ?? 'allowedOrigins');
    this.where = options.where;
  }

  /** Everything on the home origin only (the service client: no other origin is ever followed). */
  static homeOnly(home: string | URL, where?: string): OriginPolicy {
    return new OriginPolicy({ home, homeOnly: true, ...(where === undefined ? {} : { where }) });
  }

  /**
   * May a request go to `target` (reached from `from`, when it is a redirect
   * or a link; `how` says what was refused: `follow a redirect`)? `credentials` on the home origin and trusted ones,
   * `anonymous` on allowed ones; throws FERRY_ORIGIN_REFUSED otherwise.
   */
  check(target: URL, from?: URL, how = 'send a request'): OriginVerdict {
    const origin = target.origin;
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw this.refusal(target, from, how, `${target.protocol} is not http(s)`);
    if (from !== undefined && from.protocol === 'https:' && target.protocol === 'http:' && !this.allowed.has(origin) && origin !== this.home) {
      throw this.refusal(target, from, how, 'it steps down from https to http');
    }
    if (origin === this.home || this.trusted.has(origin)) return 'credentials';
    if (this.allowed.has(origin)) return 'anonymous';
    throw this.refusal(target, from, how, `${origin} is not the origin of the credentials (${this.home})`);
  }

  private refusal(target: URL, from: URL | undefined, how: string, why: string): FerryError {
    const shown = withoutQuery(target);
    return new FerryError('FERRY_ORIGIN_REFUSED', `refused to ${how} to ${shown}: ${why}`, {
      ...(this.where === undefined ? {} : { where: this.where }),
      hint:
        this.option === undefined
          ? `the credentials belong to ${this.home} and go nowhere else${this.where ? `; if the API has moved to ${target.origin}, change ${this.where}` : ''}`
          : `if ${target.origin} is meant to be read, list it under ${this.option}: (it is then read without credentials; list it as trusted to send them)`,
      details: { url: shown, origin: target.origin, home: this.home, ...(from ? { from: withoutQuery(from) } : {}) },
    });
  }
}

/** A URL as it may be shown: no query (it may hold a key), no user info. */
function withoutQuery(url: URL): string {
  return `${url.origin}${url.pathname}${url.search === '' ? '' : '?…'}`;
}

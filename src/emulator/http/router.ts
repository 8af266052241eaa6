/** Routes built from the ENDPOINTS table: path templates become regular expressions. */
import { ENDPOINTS, type Endpoint, type EndpointName } from '../../api/endpoints.js';

export interface Route {
  name: EndpointName;
  endpoint: Endpoint;
  pattern: RegExp;
  paramNames: string[];
}

export type RouteMatch = { route: Route; params: Record<string, string> } | { methodNotAllowed: true } | undefined;

function compile(name: EndpointName, endpoint: Endpoint): Route {
  const paramNames: string[] = [];
  const source = endpoint.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      paramNames.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { name, endpoint, pattern: new RegExp(`^${source}/?$`), paramNames };
}

export class Router {
  private readonly routes: Route[] = (Object.entries(ENDPOINTS) as [EndpointName, Endpoint][]).map(([name, e]) => compile(name, e));

  match(method: string, path: string): RouteMatch {
    let pathMatched = false;
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      pathMatched = true;
      if (route.endpoint.method !== method) continue;
      const params: Record<string, string> = {};
      route.paramNames.forEach((name, i) => {
        const raw = m[i + 1] ?? '';
        try {
          params[name] = decodeURIComponent(raw);
        } catch {
          params[name] = raw;
        }
      });
      return { route, params };
    }
    return pathMatched ? { methodNotAllowed: true } : undefined;
  }
}

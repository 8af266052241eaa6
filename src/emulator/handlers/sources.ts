/** /v1/sources */
import { conflict, notFound } from '../http/errors.js';
import { ok, type Handler } from '../http/context.js';
import { sourceView } from '../views/resources.js';
import { isUuid } from './shared.js';
import type { RequestContext } from '../http/context.js';
import type { SourceEntity } from '../store/types.js';

function liveSource(ctx: RequestContext, id: string | undefined): SourceEntity {
  const source = id !== undefined && isUuid(id) ? ctx.app.store.sources.findLive(ctx.principal.orgId, id) : undefined;
  if (!source) throw notFound(`source ${id ?? ''} not found`);
  return source;
}

export const createSource: Handler<'createSource'> = (ctx) => {
  const { name, displayName } = ctx.body;
  if (ctx.app.store.sources.findByName(ctx.principal.orgId, name)) {
    throw conflict(`a source named "${name}" already exists in this organization`, 'name');
  }
  return ok(sourceView(ctx.app.store.sources.create(ctx.principal.orgId, name, displayName)), 201);
};

export const listSources: Handler<'listSources'> = (ctx) =>
  ok({ sources: ctx.app.store.sources.list(ctx.principal.orgId, ctx.query.name).map(sourceView) });

export const getSource: Handler<'getSource'> = (ctx) => ok(sourceView(liveSource(ctx, ctx.params.sourceId)));

export const updateSource: Handler<'updateSource'> = (ctx) => {
  const source = liveSource(ctx, ctx.params.sourceId);
  ctx.app.store.sources.rename(source.id, ctx.body.displayName);
  return ok(sourceView(liveSource(ctx, source.id)));
};

export const deleteSource: Handler<'deleteSource'> = (ctx) => {
  const source = liveSource(ctx, ctx.params.sourceId);
  ctx.app.store.sources.softDelete(source.id);
  return ok({ status: 'deleted', id: source.id });
};

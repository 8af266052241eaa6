/** /v1/object-types */
import { conflict, notFound, validation } from '../http/errors.js';
import { ok, type Handler, type RequestContext } from '../http/context.js';
import type { FieldDefinitionData, ObjectTypeEntity } from '../store/types.js';
import { objectTypeView } from '../views/resources.js';
import { isUuid } from './shared.js';

function liveType(ctx: RequestContext, id: string | undefined): ObjectTypeEntity {
  const type = id !== undefined && isUuid(id) ? ctx.app.store.objectTypes.findLive(ctx.principal.orgId, id) : undefined;
  if (!type) throw notFound(`object type ${id ?? ''} not found`);
  return type;
}

const definitions = (defs: readonly { name: string; fieldType: FieldDefinitionData['fieldType']; label?: string | null; required: boolean }[]) =>
  defs.map((d) => ({ name: d.name, fieldType: d.fieldType, label: d.label ?? null, required: d.required }));

export const createObjectType: Handler<'createObjectType'> = (ctx) => {
  const { sourceId, name, displayName, fieldDefinitions } = ctx.body;
  const source = ctx.app.store.sources.findLive(ctx.principal.orgId, sourceId);
  if (!source) throw validation(`sourceId ${sourceId} is not a live source of this organization`, 'sourceId');
  if (ctx.app.store.objectTypes.findByName(sourceId, name)) {
    throw conflict(`an object type named "${name}" already exists under source ${sourceId}`, 'name');
  }
  const type = ctx.app.store.objectTypes.create({
    orgId: ctx.principal.orgId,
    sourceId,
    name,
    displayName,
    fieldDefinitions: definitions(fieldDefinitions),
  });
  return ok(objectTypeView(type), 201);
};

export const listObjectTypes: Handler<'listObjectTypes'> = (ctx) =>
  ok({ objectTypes: ctx.app.store.objectTypes.list(ctx.principal.orgId, ctx.query.sourceId).map(objectTypeView) });

export const getObjectType: Handler<'getObjectType'> = (ctx) => ok(objectTypeView(liveType(ctx, ctx.params.objectTypeId)));

export const updateObjectType: Handler<'updateObjectType'> = (ctx) => {
  const type = liveType(ctx, ctx.params.objectTypeId);
  const patch: { displayName?: string; fieldDefinitions?: FieldDefinitionData[] } = {};
  if (ctx.body.displayName != null) patch.displayName = ctx.body.displayName;
  if (ctx.body.fieldDefinitions != null) patch.fieldDefinitions = definitions(ctx.body.fieldDefinitions);
  ctx.app.store.objectTypes.update(type.id, patch);
  return ok(objectTypeView(liveType(ctx, type.id)));
};

export const deleteObjectType: Handler<'deleteObjectType'> = (ctx) => {
  const type = liveType(ctx, ctx.params.objectTypeId);
  ctx.app.store.objectTypes.softDelete(type.id);
  return ok({ status: 'deleted', id: type.id });
};

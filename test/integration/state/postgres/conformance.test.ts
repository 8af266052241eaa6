/** The PostgreSQL backend runs the state store's contract against the local PostgreSQL, one fresh schema per test. */
import { openStateStore } from '../../../../src/state/index.js';
import { describeStateStoreConformance } from '../../../support/state-store-conformance.js';
import { PG_URL, dropSchemas, freshSchema } from '../../../helpers/postgres.js';

describeStateStoreConformance('postgres', () => {
  const schema = freshSchema();
  return {
    open: (options = {}) => openStateStore(PG_URL, { ...options, schema }),
    dispose: () => dropSchemas(schema),
  };
});

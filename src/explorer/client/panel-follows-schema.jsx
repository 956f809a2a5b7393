import { DOC_EXPLORER_PLUGIN, usePluginContext, useSchemaContext } from '@graphiql/react';
import { useEffect } from 'react';
import { START_PLUGIN } from './start-plugin.jsx';

/**
 * When the schema read fails, the getting-started panel (which then says why) replaces the docs,
 * whose own message is a bare red "Error fetching schema"; when a schema arrives, the docs come
 * back.
 */
export function PanelFollowsSchema() {
  const { fetchError, schema } = useSchemaContext({ nonNull: true });
  const { visiblePlugin, setVisiblePlugin } = usePluginContext({ nonNull: true });
  useEffect(() => {
    if (fetchError) setVisiblePlugin(START_PLUGIN);
  }, [fetchError]);
  useEffect(() => {
    if (schema && visiblePlugin === START_PLUGIN) setVisiblePlugin(DOC_EXPLORER_PLUGIN);
  }, [schema]);
  return null;
}

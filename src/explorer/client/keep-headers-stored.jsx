import { useEditorContext } from '@graphiql/react';
import { useEffect, useRef } from 'react';

/**
 * GraphiQL 3 applies its `shouldPersistHeaders` prop once at load, before the header editor
 * exists, and so stores empty headers: unless the user edits them, the next load opens without
 * the token. Applying the setting again once the editor exists stores what the editor holds.
 */
export function KeepHeadersStored() {
  const { headerEditor, shouldPersistHeaders, setShouldPersistHeaders } = useEditorContext({
    nonNull: true,
  });
  const applied = useRef(false);
  useEffect(() => {
    if (!headerEditor || applied.current) return;
    applied.current = true;
    if (shouldPersistHeaders) setShouldPersistHeaders(true);
  }, [headerEditor, shouldPersistHeaders, setShouldPersistHeaders]);
  return null;
}

import { useEditorContext, useSchemaContext } from '@graphiql/react';
import { useEffect, useRef } from 'react';

/**
 * GraphiQL writes a failed schema read (a wrong token, say) into the response pane and leaves it
 * there after the cause is gone. This empties the pane when a new read starts or the token
 * changes, provided the pane still shows that failure: a result the user ran since stays.
 */
export function StaleSchemaError({ authorization }) {
  const { fetchError } = useSchemaContext({ nonNull: true });
  const { responseEditor } = useEditorContext({ nonNull: true });
  const shown = useRef(null);

  const clearShown = () => {
    if (responseEditor && shown.current !== null && responseEditor.getValue() === shown.current)
      responseEditor.setValue('');
    shown.current = null;
  };
  useEffect(() => {
    if (fetchError) shown.current = fetchError;
    else clearShown();
  }, [fetchError]);
  useEffect(clearShown, [authorization]);
  return null;
}

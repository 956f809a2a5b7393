import { useEditorContext } from '@graphiql/react';
import { useEffect } from 'react';

/**
 * Reports the header editor's text: once when the editor appears, then whenever it has been still
 * for `settleMs`, so a token typed key by key is read once rather than at every key. It also wraps
 * the editor's long lines: a pasted token is longer than the pane is wide, and the user should
 * see all of what they pasted.
 */
export function HeaderWatch({ onHeaders, settleMs }) {
  const { headerEditor } = useEditorContext({ nonNull: true });
  useEffect(() => {
    if (!headerEditor) return undefined;
    headerEditor.setOption('lineWrapping', true);
    onHeaders(headerEditor.getValue());
    let timer;
    const onChange = () => {
      clearTimeout(timer);
      timer = setTimeout(() => onHeaders(headerEditor.getValue()), settleMs);
    };
    headerEditor.on('change', onChange);
    return () => {
      clearTimeout(timer);
      headerEditor.off('change', onChange);
    };
  }, [headerEditor, onHeaders, settleMs]);
  return null;
}

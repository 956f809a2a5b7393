import { useSchemaContext } from '@graphiql/react';
import { useContext } from 'react';
import { describeSchemaFailure } from './schema-failure.js';
import { TokenContext } from './token-context.js';

/** The key on the sidebar button of the panel below; drawn like GraphiQL's own icons. */
function KeyIcon(props) {
  return (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      strokeLinecap="round"
      strokeLinejoin="round"
      {...props}
    >
      <circle cx="7.5" cy="15.5" r="4.5" />
      <path d="M10.7 12.3 20 3M16 7l3 3M18.5 4.5l2 2" />
    </svg>
  );
}

/** Why the schema read with the pasted token failed, in place of GraphiQL's red one-liner. */
function Failure({ fetchError }) {
  const { title, detail, advice } = describeSchemaFailure(fetchError);
  return (
    <>
      <h2 className="explorer-start-title">{title}</h2>
      <p>
        The gateway answered: <q className="explorer-start-answer">{detail}</q>
      </p>
      <p>{advice}</p>
    </>
  );
}

function StartPanel() {
  const authorization = useContext(TokenContext);
  const { fetchError } = useSchemaContext({ nonNull: true });
  return (
    <div className="explorer-start">
      {authorization && fetchError ? (
        <Failure fetchError={fetchError} />
      ) : (
        <>
          <h2 className="explorer-start-title">Paste your token</h2>
          <p>Every request to the gateway needs a token, reading the schema too.</p>
        </>
      )}
      <ol>
        <li>
          Copy a token: the admin token that <code>npm start</code> printed (also in{' '}
          <code>data/admin-token</code>), or a member&apos;s token.
        </li>
        <li>
          Paste it into <b>Headers</b>, under the query, in place of{' '}
          <code>&lt;paste the token printed at start&gt;</code>.
        </li>
        <li>The schema loads and the docs open here.</li>
        <li>
          Run the query: the pink <b>▶</b> button or <kbd>Ctrl</kbd>+<kbd>Enter</kbd>.
        </li>
      </ol>
      <p className="explorer-start-note">
        This browser keeps the headers, token included, across reloads; <i>Persist headers</i> in
        the settings (⚙, bottom left) turns that off.
      </p>
    </div>
  );
}

/** The panel shown while there is no schema to browse: what to do first, or why the read failed. */
export const START_PLUGIN = { title: 'Getting started', icon: KeyIcon, content: StartPanel };

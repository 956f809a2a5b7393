import { registerEnumType } from 'type-graphql';
import { Role } from '../../auth/role';

// Registered once for the whole schema; modules that expose Role import it from here.
registerEnumType(Role, {
  name: 'Role',
  description: 'Roles of the role table, most powerful first.',
});

export { Role };

import { registerEnumType } from 'type-graphql';
import { Role } from '../../auth/role';

registerEnumType(Role, { name: 'Role', description: 'Roles of the role table: what a member may do.' });

export { Role };

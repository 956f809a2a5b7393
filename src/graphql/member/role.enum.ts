// The `Role` GraphQL enum is registered once, in token/role.enum (a second registerEnumType would
// silently replace the first one's description); importing it here guarantees the registration.
import '../token/role.enum';

export { Role } from '../../auth/role';

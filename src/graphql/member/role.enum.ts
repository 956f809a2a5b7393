// The `Role` GraphQL enum is registered once, beside the token types that also expose it; a
// second registerEnumType would silently replace the first one's description.
export { Role } from '../token/role.enum';

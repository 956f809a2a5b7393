import type { NonEmptyArray } from 'type-graphql';
import { ForecastResolver } from './forecast/forecast.resolver';
import { MemberForecastResolver } from './forecast/member-forecast.resolver';
import { ImportResolver } from './import/import.resolver';
import { MemberResolver } from './member/member.resolver';
import { PIPELINE_RESOLVERS } from './pipeline';
import { SettingsResolver } from './settings/settings.resolver';
import { SyncResolver } from './sync/sync.resolver';
import { SubscriptionResolver } from './subscriptions/subscriptions.resolver';
import { TargetResolver } from './target/target.resolver';
import { TeamResolver } from './team/team.resolver';
import { TokenResolver } from './token/token.resolver';
import type { ClassType } from '../validation/class-type';

/** Every resolver class of the schema. Domain modules append theirs here. */
export const RESOLVERS: NonEmptyArray<ClassType> = [
  TokenResolver,
  MemberResolver,
  TeamResolver,
  SettingsResolver,
  TargetResolver,
  ...PIPELINE_RESOLVERS,
  ImportResolver,
  SyncResolver,
  SubscriptionResolver,
  ForecastResolver,
  MemberForecastResolver,
];

import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsEntityId, IsNestedInput } from '../../validation';

/** `filter` of a webhook: events about this pipeline and/or team only. */
export class WebhookFilterInput {
  @IsOptional()
  @IsEntityId()
  pipeline_id?: string;

  @IsOptional()
  @IsEntityId()
  team_id?: string;
}

/** Body of `POST /webhooks`. */
export class CreateWebhookBody {
  @IsString({ message: 'must be an http(s) URL' })
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url!: string;

  @IsArray({ message: 'must be a list of event types, or ["*"]' })
  @ArrayMaxSize(32, { message: 'must name at most 32 types' })
  @IsString({ each: true, message: 'must hold only event types' })
  events!: string[];

  @IsOptional()
  @IsNestedInput(() => WebhookFilterInput)
  filter?: WebhookFilterInput;

  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(500, { message: 'must be at most 500 characters' })
  description?: string;
}

/** Path `id` of the webhook routes. */
export class WebhookIdInput {
  @IsEntityId()
  id!: string;
}

/** `PATCH /webhooks/{id}`: any of the fields of a create, and `enabled`. */
export class UpdateWebhookBody extends WebhookIdInput {
  @IsOptional()
  @IsString({ message: 'must be an http(s) URL' })
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  url?: string;

  @IsOptional()
  @IsArray({ message: 'must be a list of event types, or ["*"]' })
  @ArrayMaxSize(32, { message: 'must name at most 32 types' })
  @IsString({ each: true, message: 'must hold only event types' })
  events?: string[];

  // null clears the filter.
  @IsOptional()
  @ValidateIf((_o, value) => value !== null)
  @IsNestedInput(() => WebhookFilterInput)
  filter?: WebhookFilterInput | null;

  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(500, { message: 'must be at most 500 characters' })
  description?: string;

  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;
}

/** `GET /webhooks/{id}/deliveries`. */
export class ListDeliveriesQuery extends WebhookIdInput {
  @IsOptional()
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100, { message: 'must be at most 100' })
  limit: number = 20;

  @IsOptional()
  @IsString({ message: 'must be a cursor (a string)' })
  @MaxLength(512, { message: 'must be at most 512 characters' })
  cursor?: string;
}

/** `POST /webhooks/{id}/deliveries/{delivery_id}/retry`. */
export class RetryDeliveryInput extends WebhookIdInput {
  @IsEntityId()
  delivery_id!: string;
}

/** `POST /webhooks/{id}/replay { since }`. */
export class ReplayBody extends WebhookIdInput {
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  since!: string;
}

/** Body of `POST /alerts/rules`. */
export class CreateAlertRuleBody {
  @IsEntityId()
  pipeline_id!: string;

  @IsString({ message: 'must be a metric name' })
  @MaxLength(64, { message: 'must be at most 64 characters' })
  metric!: string;

  @IsIn(['below', 'above'], { message: 'must be below or above' })
  condition!: 'below' | 'above';

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'must be a finite number' })
  value!: number;
}

/** Path `id` of `DEL /alerts/rules/{id}`. */
export class AlertRuleIdInput {
  @IsEntityId()
  id!: string;
}

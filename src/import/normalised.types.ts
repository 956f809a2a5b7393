import type { Outcome } from '../models/opportunity.model';
import type { ForecastCategory } from '../domain/forecast-category';
import type { SkippedItem } from './skipped';
import type { StageEntry } from '../domain/deal-history';

/** A stage after normalisation: sorted, typed, metadata trusted over labels. */
export interface NormalisedStage {
  id: string;
  label: string;
  /** 0..n-1 in HubSpot display order. */
  order: number;
  isClosed: boolean;
  probability: number;
}

export interface NormalisedDefinition {
  definitionId: string;
  label: string;
  displayOrder: number;
  stages: NormalisedStage[];
}

export interface NormalisedTeam {
  id: string;
  name: string;
}

/** An owner that can become (or be linked to) a member: active and with an e-mail. */
export interface NormalisedOwner {
  ownerId: string;
  email: string;
  firstName: string;
  lastName: string;
  /** The owner's primary team, else its first; null when it has none. */
  team: NormalisedTeam | null;
}

/** A deal that counts: it has a pipeline and a stage of that pipeline. */
export interface NormalisedDeal {
  dealId: string;
  name: string;
  definitionId: string;
  stageId: string;
  amount: number;
  /**
   * hubspot_owner_id when it names an importable owner, else null. Incremental imports also keep
   * an owner left out of `owners`: it may be linked to a member already.
   */
  ownerId: string | null;
  createdAt: Date | null;
  /** Actual close for won/lost deals (closedate, else the date it entered its closed stage), expected close for open ones. */
  closedAt: Date | null;
  outcome: Outcome;
  /**
   * stageId → when the deal entered it (hs_v2_date_entered_<stageId>, else
   * hs_date_entered_<stageId>), stages of its pipeline only.
   */
  stageEnteredAt: Record<string, Date>;
  /**
   * The forecast category the CRM gives (HubSpot hs_manual_forecast_category, else
   * hs_forecast_category); absent when it gives none, so that the import's source hash of a deal
   * without one is what it was before categories existed.
   */
  crmForecastCategory?: ForecastCategory;
  /** The same entries ordered by time, stage order breaking ties: what the stage history adds. */
  stageEntries: StageEntry[];
}

/** The whole import after normalisation: everything later steps need, nothing they must re-check. */
export interface NormalisedCrmData {
  definitions: NormalisedDefinition[];
  owners: NormalisedOwner[];
  deals: NormalisedDeal[];
  skipped: SkippedItem[];
  /** Incremental imports: deals that leave (archived, or carried but no longer usable), by id. */
  removedDealIds: string[];
  /**
   * Deals skipped only for being in another currency than the one counted, by currency (most
   * first): how many a currency change would bring in.
   */
  skippedForCurrency: CurrencySkips[];
}

/** Deals in one currency that were skipped for it. */
export interface CurrencySkips {
  currency: string;
  deals: number;
}

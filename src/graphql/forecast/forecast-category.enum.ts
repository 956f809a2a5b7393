import { registerEnumType } from 'type-graphql';

/** The forecast categories (domain/forecast-category.ts), GraphQL-cased. */
export enum ForecastCategoryValue {
  PIPELINE = 'pipeline',
  BEST_CASE = 'best_case',
  COMMIT = 'commit',
  CLOSED = 'closed',
  OMITTED = 'omitted',
}

registerEnumType(ForecastCategoryValue, {
  name: 'ForecastCategory',
  description:
    'Open deals are PIPELINE, BEST_CASE or COMMIT (or OMITTED when the CRM leaves them out of the forecast); won deals CLOSED, lost ones OMITTED.',
});

/** Where a deal's category came from. */
export enum ForecastCategorySourceValue {
  OUTCOME = 'outcome',
  CRM = 'crm',
  MAPPING = 'mapping',
  PROBABILITY = 'probability',
}

registerEnumType(ForecastCategorySourceValue, {
  name: 'ForecastCategorySource',
  description:
    "OUTCOME: won or lost; CRM: the CRM's category; MAPPING: the admin's stage mapping in force at the import; PROBABILITY: the stage's probability.",
});

/** Forecast cadences. */
export enum CadenceEveryValue {
  WEEK = 'week',
  MONTH = 'month',
}

registerEnumType(CadenceEveryValue, { name: 'CadenceEvery' });

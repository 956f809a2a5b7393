import { Role } from '../auth/role';

/** The demo company's fixed cast: three teams, twelve people, two deal pipelines. */

export interface DemoTeam {
  id: string;
  name: string;
}

export interface DemoPerson {
  ownerId: string;
  firstName: string;
  lastName: string;
  email: string;
  teamId: string;
  role: Role;
}

export interface DemoStage {
  id: string;
  label: string;
  probability: number;
  isClosed: boolean;
}

export interface DemoPipeline {
  id: string;
  label: string;
  /** Share of all deals. */
  share: number;
  /** Median deal amount in EUR. */
  medianAmount: number;
  /** Chance a deal is lost at each open stage. */
  lossPerStage: number;
  /** Mean days spent in a stage. */
  daysPerStage: number;
  stages: DemoStage[];
}

export const DEMO_CURRENCY = 'EUR';
export const DEMO_PERIOD = 'quarterly' as const;
export const DEMO_EMAIL_DOMAIN = 'demo-company.example';

// HubSpot team ids are numeric strings.
export const DEMO_TEAMS: readonly DemoTeam[] = [
  { id: '7101', name: 'Nordics' },
  { id: '7102', name: 'DACH' },
  { id: '7103', name: 'Benelux' },
];

const PEOPLE: [string, string, number, Role][] = [
  ['Astrid', 'Lindqvist', 0, Role.ADMIN],
  ['Mikkel', 'Sørensen', 0, Role.MANAGER],
  ['Aino', 'Virtanen', 0, Role.MEMBER],
  ['Erik', 'Hansen', 0, Role.MEMBER],
  ['Katharina', 'Vogel', 1, Role.MANAGER],
  ['Jonas', 'Brandt', 1, Role.MEMBER],
  ['Lea', 'Hofer', 1, Role.MEMBER],
  ['Felix', 'Keller', 1, Role.MEMBER],
  ['Sanne', 'de Vries', 2, Role.MANAGER],
  ['Bram', 'Janssens', 2, Role.MEMBER],
  ['Noor', 'Bakker', 2, Role.MEMBER],
  ['Luc', 'Peeters', 2, Role.MEMBER],
];

export const DEMO_PEOPLE: readonly DemoPerson[] = PEOPLE.map(
  ([firstName, lastName, team, role], i) => ({
    ownerId: String(51_000_001 + i),
    firstName,
    lastName,
    email: `${firstName}.${lastName.replace(/\s+/g, '')}@${DEMO_EMAIL_DOMAIN}`
      .toLowerCase()
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace('ø', 'o'),
    teamId: DEMO_TEAMS[team].id,
    role,
  }),
);

export const DEMO_PIPELINES: readonly DemoPipeline[] = [
  {
    id: 'default',
    label: 'New Business',
    share: 0.7,
    medianAmount: 12_000,
    lossPerStage: 0.16,
    daysPerStage: 18,
    stages: [
      {
        id: 'appointmentscheduled',
        label: 'Appointment Scheduled',
        probability: 0.1,
        isClosed: false,
      },
      { id: 'qualifiedtobuy', label: 'Qualified To Buy', probability: 0.2, isClosed: false },
      {
        id: 'presentationscheduled',
        label: 'Presentation Scheduled',
        probability: 0.4,
        isClosed: false,
      },
      {
        id: 'decisionmakerboughtin',
        label: 'Decision Maker Bought-In',
        probability: 0.6,
        isClosed: false,
      },
      { id: 'contractsent', label: 'Contract Sent', probability: 0.8, isClosed: false },
      { id: 'closedwon', label: 'Closed Won', probability: 1, isClosed: true },
      { id: 'closedlost', label: 'Closed Lost', probability: 0, isClosed: true },
    ],
  },
  {
    id: '90210001',
    label: 'Renewals',
    share: 0.3,
    medianAmount: 8_000,
    lossPerStage: 0.06,
    daysPerStage: 21,
    stages: [
      { id: '90210011', label: 'Renewal Due', probability: 0.3, isClosed: false },
      { id: '90210012', label: 'Usage Review', probability: 0.5, isClosed: false },
      { id: '90210013', label: 'Quote Sent', probability: 0.7, isClosed: false },
      { id: '90210014', label: 'Negotiation', probability: 0.9, isClosed: false },
      { id: '90210015', label: 'Renewed', probability: 1, isClosed: true },
      { id: '90210016', label: 'Churned', probability: 0, isClosed: true },
    ],
  },
];

export const DEMO_COMPANIES = [
  'Fjord',
  'Alpen',
  'Polder',
  'Nord',
  'Rhein',
  'Baltic',
  'Meridian',
  'Kestrel',
  'Lumen',
  'Granite',
  'Harbor',
  'Vantage',
  'Cobalt',
  'Aurora',
  'Birch',
  'Delta',
  'Ember',
  'Solstice',
  'Tundra',
  'Willow',
];
export const DEMO_COMPANY_KINDS = [
  'Logistics',
  'Foods',
  'Analytics',
  'Energy',
  'Systems',
  'Retail',
  'Health',
  'Labs',
  'Bank',
  'Media',
];

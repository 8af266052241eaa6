/**
 * The files `ferry init` writes. The example sync reads a handful of real
 * rows of the CRM sales-pipeline data set (embedded here so a scaffold needs
 * nothing else) and pushes them as rows of a `deal` object type; it must pass
 * `ferry check` and `ferry run` against the embedded emulator as written.
 */

export const PROJECT_FILE = `# yaml-language-server: $schema=./ferry.schema.json
# ferry project file. Reference: docs/configuration.md of the ferry package (\`ferry --help\`
# says where); ferry.schema.json (from \`ferry schema\`) lets editors complete and check it.
version: 1

service:
  # "embedded" starts a local emulator of the service in-process: nothing to set up.
  # Point it at the real service with FERRY_BASE_URL and FERRY_API_KEY (see .env.example).
  baseUrl: \${FERRY_BASE_URL:-embedded}
  apiKey: \${FERRY_API_KEY:-}
  # Requests in flight and the request rate are found from the service's answers (latency, 429s);
  # set these only as upper bounds, e.g. for a contract to stay under:
  # concurrency: 16
  # maxRequestsPerSecond: 100

state:
  url: sqlite:state/ferry.db  # cursors, ledger, dead-letter (relative to this file)

emulator:
  db: state/emulator.db       # where the embedded emulator keeps what you push

# Syncs and exports can live in their own files.
include: [pipelines/*.yaml]
`;

export const EXAMPLE_PIPELINE = `# yaml-language-server: $schema=../ferry.schema.json
# An example sync: CRM deals from a CSV file → rows of the "deal" object type.
# Try it: ferry preview example, then ferry run example.
syncs:
  - name: example
    description: Sample CRM opportunities (CSV) pushed as deal rows
    source:
      type: csv
      path: ../data/sample.csv      # relative to this file
      primaryKey: opportunity_id
    target:
      type: row
      source: { name: ferry-example, displayName: Ferry example }
      objectType:
        name: deal
        displayName: Deal
        fields:
          agent: { type: string, label: Sales agent }
          product: { type: string, label: Product }
          account: { type: string, label: Account }
          stage: { type: string, label: Stage }
          engagedOn: { type: date, label: Engaged on }
          closedOn: { type: date, label: Closed on }
          amount: { type: int, label: Close value (USD) }
      # Each value is a JSONata expression over one CSV row; a bare column name is the common case.
      map:
        id: opportunity_id
        name: product & " for " & account
        public: true
        fields:
          agent: sales_agent
          product: product
          account: account
          stage: deal_stage
          engagedOn: engage_date
          closedOn: close_date
          amount: $number(close_value)
`;

/** Real rows of /work/shared/datasets/crm-sales-opportunities/sales_pipeline.csv (closed deals). */
export const SAMPLE_CSV = `opportunity_id,sales_agent,product,account,deal_stage,engage_date,close_date,close_value
1C1I7A6R,Moses Frase,GTX Plus Basic,Cancity,Won,2016-10-20,2017-03-01,1054
Z063OYW0,Darcel Schlecht,GTXPro,Isdom,Won,2016-10-25,2017-03-11,4514
EC4QE1BX,Darcel Schlecht,MG Special,Cancity,Won,2016-10-25,2017-03-07,50
MV1LWRNH,Moses Frase,GTX Basic,Codehow,Won,2016-10-25,2017-03-09,588
PE84CX4O,Zane Levy,GTX Basic,Hatfan,Won,2016-10-25,2017-03-02,517
KWVA7VR1,Gladys Colclough,GTXPro,Genco Pura Olive Oil Company,Lost,2016-11-04,2017-03-18,0
3F5MZNEH,Rosalina Dieter,MG Special,Sonron,Lost,2016-11-05,2017-03-03,0
902REDPA,Daniell Hammack,GTXPro,Xx-zobam,Lost,2016-11-07,2017-03-09,0
`;

export const ENV_EXAMPLE = `# The variables ferry.yaml reads. ferry takes them from the environment (it does not
# read .env files): export them in your shell or set them in your scheduler.
# Leave FERRY_BASE_URL unset to use the embedded emulator.
FERRY_BASE_URL=https://api.example.com
FERRY_API_KEY=
# FERRY_LOG_LEVEL=info
`;

export const GITIGNORE = `# ferry runtime state (SQLite and its journal files)
state/*.db
state/*.db-*
.env
`;

/** Every file of the scaffold, by path relative to the project directory. */
export const SCAFFOLD: readonly { path: string; content: string }[] = [
  { path: 'ferry.yaml', content: PROJECT_FILE },
  { path: 'pipelines/example.yaml', content: EXAMPLE_PIPELINE },
  { path: 'data/sample.csv', content: SAMPLE_CSV },
  { path: '.env.example', content: ENV_EXAMPLE },
  { path: '.gitignore', content: GITIGNORE },
];

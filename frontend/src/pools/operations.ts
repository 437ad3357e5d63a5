import { graphql } from "../graphql";

/** What the pools screen shows of an instance holding or waiting for a pool. */
export const PoolInstanceFields = graphql(`
  fragment PoolInstanceFields on Instance {
    id
    status
    reason
    result
    triggerType
    actualTriggerTime
    startedTime
    poolSlots
    poolPosition
    job {
      id
      name
    }
  }
`);

/** What the pools screen shows and edits of a pool. */
export const PoolFields = graphql(`
  fragment PoolFields on Pool {
    id
    name
    description
    slots
    usedSlots
    holders {
      ...PoolInstanceFields
    }
    queue {
      ...PoolInstanceFields
    }
    jobs {
      id
      name
      poolSlots
    }
    updatedAt
  }
`);

export const AppPoolsQuery = graphql(`
  query AppPools($app: String!) {
    pools(app: $app) {
      ...PoolFields
    }
  }
`);

/** The app's pools by name, for the job form and the workflow editor's pickers. */
export const PoolNamesQuery = graphql(`
  query PoolNames($app: String!) {
    pools(app: $app) {
      id
      name
      slots
    }
  }
`);

export const CreatePoolMutation = graphql(`
  mutation CreatePool($input: PoolInput!) {
    createPool(input: $input) {
      ...PoolFields
    }
  }
`);

export const UpdatePoolMutation = graphql(`
  mutation UpdatePool($id: ID!, $input: PoolInput!) {
    updatePool(id: $id, input: $input) {
      ...PoolFields
    }
  }
`);

export const DeletePoolMutation = graphql(`
  mutation DeletePool($id: ID!) {
    deletePool(id: $id)
  }
`);

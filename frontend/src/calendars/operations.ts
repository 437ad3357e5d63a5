import { graphql } from "../graphql";

/** What the calendars screen shows and edits of a calendar. */
export const CalendarFields = graphql(`
  fragment CalendarFields on Calendar {
    id
    name
    description
    dates
    jobs {
      id
      name
    }
    updatedAt
  }
`);

export const AppCalendarsQuery = graphql(`
  query AppCalendars($app: String!) {
    calendars(app: $app) {
      ...CalendarFields
    }
  }
`);

export const CreateCalendarMutation = graphql(`
  mutation CreateCalendar($input: CalendarInput!) {
    createCalendar(input: $input) {
      ...CalendarFields
    }
  }
`);

export const UpdateCalendarMutation = graphql(`
  mutation UpdateCalendar($id: ID!, $input: CalendarInput!) {
    updateCalendar(id: $id, input: $input) {
      ...CalendarFields
    }
  }
`);

export const DeleteCalendarMutation = graphql(`
  mutation DeleteCalendar($id: ID!) {
    deleteCalendar(id: $id)
  }
`);

import { describeReceiverAnswers } from './support/receiver-answer-cases.js';

// On PGlite (or on DATABASE_URL's server); webhook-receiver-answers.pg.test.ts runs the same on PostgreSQL.
describeReceiverAnswers();

import { describeReceiverAnswers } from './support/receiver-answer-cases.js';

// The same cases as webhook-receiver-answers.test.ts, on a PostgreSQL server.
describeReceiverAnswers();

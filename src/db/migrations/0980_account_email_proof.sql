-- Proven emails (docs/admin-api.md, "Accounts and proven emails"): an account is reused for its email (by the
-- admin API, an invitation) only once the email was proven, by the link mailed to it or by the operator.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
--> statement-breakpoint
-- Accounts made before this column: the operator made them (proven by the operator's choice), except those an
-- invitation link made (the account came into being when an invitation to it was accepted). Whether that link
-- was the mailed one is not known, so those stay unproven: reusing one takes the operator's explicit choice.
UPDATE users SET email_verified_at = created_at
WHERE NOT EXISTS (
  SELECT 1 FROM invitations
  WHERE invitations.accepted_by_user_id = users.id AND users.created_at >= invitations.created_at
);
--> statement-breakpoint
-- The link that went by mail has a token of its own (its SHA-256): only the mailbox has it, the inviter never
-- does, so accepting with it proves the address. Null: no mail was sent (no CADRE_SMTP_URL).
ALTER TABLE invitations ADD COLUMN mail_token_digest text UNIQUE;

-- An organization keeps at most a fixed number of pending single sign-on starts (docs/sso.md): the
-- newest by expiry are kept, found through this index.
CREATE INDEX sso_sign_ins_organization ON sso_sign_ins (organization_id, expires_at);

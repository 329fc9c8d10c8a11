-- Integration Versions are immutable: a change is a new version. Only re-encrypting the client secret
-- under a newer key (key rotation) may rewrite a row, and rows are never deleted while flows may pin them.
CREATE FUNCTION integration_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'integration versions are immutable';
  END IF;
  IF (NEW.id, NEW.integration_id, NEW.organization_id, NEW.preset_key, NEW.number, NEW.client_id, NEW.scopes,
      NEW.provider, NEW.verified, NEW.created_at)
     IS DISTINCT FROM
     (OLD.id, OLD.integration_id, OLD.organization_id, OLD.preset_key, OLD.number, OLD.client_id, OLD.scopes,
      OLD.provider, OLD.verified, OLD.created_at) THEN
    RAISE EXCEPTION 'integration versions are immutable (only the client secret ciphertext may be re-encrypted)';
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER integration_versions_immutable
  BEFORE UPDATE OR DELETE ON integration_versions
  FOR EACH ROW EXECUTE FUNCTION integration_versions_immutable();

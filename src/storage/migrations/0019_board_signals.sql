-- The arena board is built from the trade log (whose rows signal their key, 0017) and from the
-- public identities (api_keys, counted by arena_identity_version) and house agents. A process
-- caching reads over every book (src/storage/book-cache.ts, readShared) learns of the latter
-- two here: every book at once, as they change rarely (a key created, renamed, published,
-- revoked; a house agent claimed). house_agents updates (its step counter) change nothing shown.
CREATE TRIGGER arena_identity_version_book_changed AFTER INSERT OR UPDATE OR DELETE ON arena_identity_version
  FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();
CREATE TRIGGER house_agents_book_changed AFTER INSERT OR DELETE ON house_agents
  FOR EACH STATEMENT EXECUTE FUNCTION book_changed_all();

-- A competition deleted before it starts takes its entries with it in the same statement: an
-- entry committed while the delete ran made the delete fail (foreign key), and an entry racing
-- a committed delete is refused by the key (answered 404, not 500).
ALTER TABLE competition_entries DROP CONSTRAINT competition_entries_competition_id_fkey;
ALTER TABLE competition_entries ADD CONSTRAINT competition_entries_competition_id_fkey
  FOREIGN KEY (competition_id) REFERENCES competitions(id) ON DELETE CASCADE;

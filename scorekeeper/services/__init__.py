"""Services: load rows, call the engine, write rows, commit. Transactions live here."""

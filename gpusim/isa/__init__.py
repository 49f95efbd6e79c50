"""PTX front end: text -> syntax tree (parser) -> numeric arrays the executor reads (decode)."""

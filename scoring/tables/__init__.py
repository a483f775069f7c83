"""Tables: a group's games, its members and standings across games (standings), its pages
(views) and forms (forms). The models are scoring.models.table's."""

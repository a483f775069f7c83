"""What a request carries and an answer needs, shared by the pages of games and of tables.

The typed request and refusals in HTTP (http), the limits (limits), the phone that makes a
change (phones), this browser's recent games (recent), the shared links (sharing), notices
shown once (notices), whom a request came from (clients), the pages that follow their game or
table live (following)."""

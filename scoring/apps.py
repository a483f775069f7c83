from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Rami scoring")

    def ready(self) -> None:
        # The rules module is plain Python: its errors speak English through the catalogue.
        from . import errors, rules

        rules.RulesError.describe = errors.english

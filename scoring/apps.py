from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Rami scoring")

    def ready(self) -> None:
        from scoring.web import csrf_mask

        csrf_mask.install()

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("scoring.urls")),
    # set_language: the language switcher on every page posts here.
    path("i18n/", include("django.conf.urls.i18n")),
]

# The admin only when the operator turns it on (DJANGO_ADMIN=true); otherwise /admin/ is a 404.
if settings.ADMIN_ENABLED:
    urlpatterns.append(path("admin/", admin.site.urls))

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("scoring.urls")),
    path("admin/", admin.site.urls),
    # set_language: the language switcher on every page posts here.
    path("i18n/", include("django.conf.urls.i18n")),
]

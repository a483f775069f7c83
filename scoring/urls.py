from django.urls import path

from . import views

urlpatterns = [
    path("", views.start, name="start"),
    path("healthz", views.healthz, name="healthz"),
    path("g/<str:token>/export.json", views.export_json, name="export_json"),
    path("rules/", views.rules_page, name="rules"),
]

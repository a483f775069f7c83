from django.urls import path

from . import views

urlpatterns = [
    path("", views.start, name="start"),
    path("healthz", views.healthz, name="healthz"),
    path("g/<str:token>/", views.game_page, name="game"),
    path("g/<str:token>/rounds/<int:number>/", views.round_page, name="round"),
    path("g/<str:token>/poll", views.poll, name="poll"),
    path("v/<str:token>/", views.view_page, name="view"),
    path("v/<str:token>/poll", views.view_poll, name="view_poll"),
    path("g/<str:token>/export.json", views.export_json, name="export_json"),
    path("g/<str:token>/export.csv", views.export_csv, name="export_csv"),
    path("v/<str:token>/export.csv", views.view_export_csv, name="view_export_csv"),
    path("v/<str:token>/export.json", views.view_export_json, name="view_export_json"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("rules/", views.rules_page, name="rules"),
    path("g/<str:token>/history/", views.history_page, name="history"),
]

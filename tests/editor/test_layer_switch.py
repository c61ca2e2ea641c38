"""``DUALMEM_EDITOR_LAYERS`` (config key ``editor_layers``) turns the Editor's optional layers on
wherever an Editor runs; a wrong name is refused when the settings are read, naming the layers."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from dualmem_core.cli import main
from dualmem_core.editor import EditorConfig
from dualmem_core.editor.layer_switch import ENV_EDITOR_LAYERS, editor_config, parse_layers
from dualmem_core.errors import EditorConfigError
from dualmem_core.settings import provider_environ, resolve_settings
from dualmem_core.timeutil import utcnow

PLAN = "I'm flying to Lisbon next Friday"  # a training text of the intentions reader: plumbing only


def test_layers_are_named_comma_separated_in_any_case_or_none():
    assert parse_layers(" topics, Summaries ,topics") == ("topics", "summaries")
    assert parse_layers("none") == ()
    on = editor_config({ENV_EDITOR_LAYERS: "intentions"})
    assert on.intentions and not on.topics and not on.summaries
    assert editor_config({}) == EditorConfig() == editor_config({ENV_EDITOR_LAYERS: " "})
    assert editor_config({ENV_EDITOR_LAYERS: "none"}) == EditorConfig()  # all three are off by default


@pytest.mark.parametrize("spec, words", [("topic", "unknown layer 'topic'"), (",", "no layer named"),
                                         ("topics,none", "unknown layer 'none'")])
def test_a_wrong_layer_is_refused_naming_the_layers(spec, words):
    with pytest.raises(EditorConfigError) as err:
        parse_layers(spec)
    assert words in str(err.value) and "summaries, topics, intentions" in str(err.value)


def test_the_config_file_sets_them_and_a_typo_there_says_where(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text('editor_layers = "topics,intentions"\n')
    settings = resolve_settings(config_path=path, environ={})
    assert settings.editor_layers == ("topics", "intentions")
    assert provider_environ(settings)[ENV_EDITOR_LAYERS] == "topics,intentions"
    assert ENV_EDITOR_LAYERS not in provider_environ(resolve_settings(environ={}))
    path.write_text('editor_layers = "tpoics"\n')
    with pytest.raises(EditorConfigError, match=f"set as editor_layers in config file {path}"):
        resolve_settings(config_path=path, environ={})


@pytest.mark.parametrize("layers, planned", [("", 0), ("intentions", 1)])
def test_dualmem_edit_runs_the_layers_the_setting_names(tmp_path, monkeypatch, capsys, layers, planned):
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    monkeypatch.setenv(ENV_EDITOR_LAYERS, layers)
    monkeypatch.delenv("DUALMEM_CONFIG", raising=False)
    store = ["--store", f"sqlite:///{tmp_path / 'memory.db'}"]
    at = (utcnow() - timedelta(hours=1)).isoformat()
    assert main(["remember", *store, "--user", "u1", "--at", at, PLAN]) == 0
    assert main(["edit", *store, "--user", "u1"]) == 0
    capsys.readouterr()
    assert main(["upcoming", *store, "--user", "u1", "--within", "14d", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == planned

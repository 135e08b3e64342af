from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InformationType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INFORMATION_TYPE_UNSPECIFIED: _ClassVar[InformationType]
    INFORMATION_TYPE_PERFECT: _ClassVar[InformationType]
    INFORMATION_TYPE_IMPERFECT: _ClassVar[InformationType]

class StateFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STATE_FORMAT_UNSPECIFIED: _ClassVar[StateFormat]
    STATE_FORMAT_TYPED: _ClassVar[StateFormat]
    STATE_FORMAT_OPAQUE: _ClassVar[StateFormat]
    STATE_FORMAT_JSON: _ClassVar[StateFormat]
    STATE_FORMAT_JSON_OBJECT: _ClassVar[StateFormat]
    STATE_FORMAT_RECORD: _ClassVar[StateFormat]
    STATE_FORMAT_SEALED: _ClassVar[StateFormat]

class IllegalReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ILLEGAL_REASON_UNSPECIFIED: _ClassVar[IllegalReason]
    ILLEGAL_REASON_UNPARSEABLE: _ClassVar[IllegalReason]
    ILLEGAL_REASON_NOT_A_MOVE: _ClassVar[IllegalReason]
    ILLEGAL_REASON_ID_TEXT_MISMATCH: _ClassVar[IllegalReason]
    ILLEGAL_REASON_GAME_OVER: _ClassVar[IllegalReason]
    ILLEGAL_REASON_NOT_YOUR_TURN: _ClassVar[IllegalReason]
    ILLEGAL_REASON_RULES: _ClassVar[IllegalReason]
    ILLEGAL_REASON_EMPTY: _ClassVar[IllegalReason]
    ILLEGAL_REASON_HIDDEN: _ClassVar[IllegalReason]

class SearchStopReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_STOP_REASON_UNSPECIFIED: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_ITERATIONS: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_TIME_LIMIT: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_DEADLINE: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_CANCELLED: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_MEMORY: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_SHUTDOWN: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_PREEMPTED: _ClassVar[SearchStopReason]
    SEARCH_STOP_REASON_QUEUE_WAIT: _ClassVar[SearchStopReason]

class ReviewLabel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REVIEW_LABEL_UNSPECIFIED: _ClassVar[ReviewLabel]
    REVIEW_LABEL_BEST: _ClassVar[ReviewLabel]
    REVIEW_LABEL_GOOD: _ClassVar[ReviewLabel]
    REVIEW_LABEL_INACCURACY: _ClassVar[ReviewLabel]
    REVIEW_LABEL_MISTAKE: _ClassVar[ReviewLabel]
    REVIEW_LABEL_BLUNDER: _ClassVar[ReviewLabel]

class KeyMomentReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KEY_MOMENT_REASON_UNSPECIFIED: _ClassVar[KeyMomentReason]
    KEY_MOMENT_REASON_MISTAKE: _ClassVar[KeyMomentReason]
    KEY_MOMENT_REASON_BLUNDER: _ClassVar[KeyMomentReason]
    KEY_MOMENT_REASON_DROP: _ClassVar[KeyMomentReason]
    KEY_MOMENT_REASON_RISE: _ClassVar[KeyMomentReason]

class SamaraGender(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SAMARA_GENDER_UNSPECIFIED: _ClassVar[SamaraGender]
    SAMARA_GENDER_MAN: _ClassVar[SamaraGender]
    SAMARA_GENDER_WOMAN: _ClassVar[SamaraGender]

class SamaraDecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SAMARA_DECISION_KIND_UNSPECIFIED: _ClassVar[SamaraDecisionKind]
    SAMARA_DECISION_KIND_GIVE: _ClassVar[SamaraDecisionKind]
    SAMARA_DECISION_KIND_WEAKEN: _ClassVar[SamaraDecisionKind]
    SAMARA_DECISION_KIND_BURY: _ClassVar[SamaraDecisionKind]
    SAMARA_DECISION_KIND_IMPRISON: _ClassVar[SamaraDecisionKind]

class SamaraToolFilter(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SAMARA_TOOL_FILTER_UNSPECIFIED: _ClassVar[SamaraToolFilter]
    SAMARA_TOOL_FILTER_SAW: _ClassVar[SamaraToolFilter]
    SAMARA_TOOL_FILTER_TROWEL: _ClassVar[SamaraToolFilter]
    SAMARA_TOOL_FILTER_GLASS: _ClassVar[SamaraToolFilter]

class OhMyGoodsPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OH_MY_GOODS_PHASE_UNSPECIFIED: _ClassVar[OhMyGoodsPhase]
    OH_MY_GOODS_PHASE_REDRAW: _ClassVar[OhMyGoodsPhase]
    OH_MY_GOODS_PHASE_SHIFT: _ClassVar[OhMyGoodsPhase]
    OH_MY_GOODS_PHASE_CHOOSE: _ClassVar[OhMyGoodsPhase]
    OH_MY_GOODS_PHASE_ACT: _ClassVar[OhMyGoodsPhase]
    OH_MY_GOODS_PHASE_OVER: _ClassVar[OhMyGoodsPhase]

class OhMyGoodsWorkMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OH_MY_GOODS_WORK_MODE_UNSPECIFIED: _ClassVar[OhMyGoodsWorkMode]
    OH_MY_GOODS_WORK_MODE_ORDERLY: _ClassVar[OhMyGoodsWorkMode]
    OH_MY_GOODS_WORK_MODE_SLOPPY: _ClassVar[OhMyGoodsWorkMode]

class OhMyGoodsStep(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OH_MY_GOODS_STEP_UNSPECIFIED: _ClassVar[OhMyGoodsStep]
    OH_MY_GOODS_STEP_RUN: _ClassVar[OhMyGoodsStep]
    OH_MY_GOODS_STEP_SUPPLY: _ClassVar[OhMyGoodsStep]
    OH_MY_GOODS_STEP_CHAIN: _ClassVar[OhMyGoodsStep]
    OH_MY_GOODS_STEP_BUILD: _ClassVar[OhMyGoodsStep]
    OH_MY_GOODS_STEP_HIRE: _ClassVar[OhMyGoodsStep]
    OH_MY_GOODS_STEP_PLACE: _ClassVar[OhMyGoodsStep]

class OhMyGoodsPayPurpose(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OH_MY_GOODS_PAY_PURPOSE_UNSPECIFIED: _ClassVar[OhMyGoodsPayPurpose]
    OH_MY_GOODS_PAY_PURPOSE_SHIFT: _ClassVar[OhMyGoodsPayPurpose]
    OH_MY_GOODS_PAY_PURPOSE_BUILD: _ClassVar[OhMyGoodsPayPurpose]
    OH_MY_GOODS_PAY_PURPOSE_HIRE: _ClassVar[OhMyGoodsPayPurpose]
INFORMATION_TYPE_UNSPECIFIED: InformationType
INFORMATION_TYPE_PERFECT: InformationType
INFORMATION_TYPE_IMPERFECT: InformationType
STATE_FORMAT_UNSPECIFIED: StateFormat
STATE_FORMAT_TYPED: StateFormat
STATE_FORMAT_OPAQUE: StateFormat
STATE_FORMAT_JSON: StateFormat
STATE_FORMAT_JSON_OBJECT: StateFormat
STATE_FORMAT_RECORD: StateFormat
STATE_FORMAT_SEALED: StateFormat
ILLEGAL_REASON_UNSPECIFIED: IllegalReason
ILLEGAL_REASON_UNPARSEABLE: IllegalReason
ILLEGAL_REASON_NOT_A_MOVE: IllegalReason
ILLEGAL_REASON_ID_TEXT_MISMATCH: IllegalReason
ILLEGAL_REASON_GAME_OVER: IllegalReason
ILLEGAL_REASON_NOT_YOUR_TURN: IllegalReason
ILLEGAL_REASON_RULES: IllegalReason
ILLEGAL_REASON_EMPTY: IllegalReason
ILLEGAL_REASON_HIDDEN: IllegalReason
SEARCH_STOP_REASON_UNSPECIFIED: SearchStopReason
SEARCH_STOP_REASON_ITERATIONS: SearchStopReason
SEARCH_STOP_REASON_TIME_LIMIT: SearchStopReason
SEARCH_STOP_REASON_DEADLINE: SearchStopReason
SEARCH_STOP_REASON_CANCELLED: SearchStopReason
SEARCH_STOP_REASON_MEMORY: SearchStopReason
SEARCH_STOP_REASON_SHUTDOWN: SearchStopReason
SEARCH_STOP_REASON_PREEMPTED: SearchStopReason
SEARCH_STOP_REASON_QUEUE_WAIT: SearchStopReason
REVIEW_LABEL_UNSPECIFIED: ReviewLabel
REVIEW_LABEL_BEST: ReviewLabel
REVIEW_LABEL_GOOD: ReviewLabel
REVIEW_LABEL_INACCURACY: ReviewLabel
REVIEW_LABEL_MISTAKE: ReviewLabel
REVIEW_LABEL_BLUNDER: ReviewLabel
KEY_MOMENT_REASON_UNSPECIFIED: KeyMomentReason
KEY_MOMENT_REASON_MISTAKE: KeyMomentReason
KEY_MOMENT_REASON_BLUNDER: KeyMomentReason
KEY_MOMENT_REASON_DROP: KeyMomentReason
KEY_MOMENT_REASON_RISE: KeyMomentReason
SAMARA_GENDER_UNSPECIFIED: SamaraGender
SAMARA_GENDER_MAN: SamaraGender
SAMARA_GENDER_WOMAN: SamaraGender
SAMARA_DECISION_KIND_UNSPECIFIED: SamaraDecisionKind
SAMARA_DECISION_KIND_GIVE: SamaraDecisionKind
SAMARA_DECISION_KIND_WEAKEN: SamaraDecisionKind
SAMARA_DECISION_KIND_BURY: SamaraDecisionKind
SAMARA_DECISION_KIND_IMPRISON: SamaraDecisionKind
SAMARA_TOOL_FILTER_UNSPECIFIED: SamaraToolFilter
SAMARA_TOOL_FILTER_SAW: SamaraToolFilter
SAMARA_TOOL_FILTER_TROWEL: SamaraToolFilter
SAMARA_TOOL_FILTER_GLASS: SamaraToolFilter
OH_MY_GOODS_PHASE_UNSPECIFIED: OhMyGoodsPhase
OH_MY_GOODS_PHASE_REDRAW: OhMyGoodsPhase
OH_MY_GOODS_PHASE_SHIFT: OhMyGoodsPhase
OH_MY_GOODS_PHASE_CHOOSE: OhMyGoodsPhase
OH_MY_GOODS_PHASE_ACT: OhMyGoodsPhase
OH_MY_GOODS_PHASE_OVER: OhMyGoodsPhase
OH_MY_GOODS_WORK_MODE_UNSPECIFIED: OhMyGoodsWorkMode
OH_MY_GOODS_WORK_MODE_ORDERLY: OhMyGoodsWorkMode
OH_MY_GOODS_WORK_MODE_SLOPPY: OhMyGoodsWorkMode
OH_MY_GOODS_STEP_UNSPECIFIED: OhMyGoodsStep
OH_MY_GOODS_STEP_RUN: OhMyGoodsStep
OH_MY_GOODS_STEP_SUPPLY: OhMyGoodsStep
OH_MY_GOODS_STEP_CHAIN: OhMyGoodsStep
OH_MY_GOODS_STEP_BUILD: OhMyGoodsStep
OH_MY_GOODS_STEP_HIRE: OhMyGoodsStep
OH_MY_GOODS_STEP_PLACE: OhMyGoodsStep
OH_MY_GOODS_PAY_PURPOSE_UNSPECIFIED: OhMyGoodsPayPurpose
OH_MY_GOODS_PAY_PURPOSE_SHIFT: OhMyGoodsPayPurpose
OH_MY_GOODS_PAY_PURPOSE_BUILD: OhMyGoodsPayPurpose
OH_MY_GOODS_PAY_PURPOSE_HIRE: OhMyGoodsPayPurpose

class OptionValue(_message.Message):
    __slots__ = ("bool_value", "int_value", "string_value")
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    bool_value: bool
    int_value: int
    string_value: str
    def __init__(self, bool_value: _Optional[bool] = ..., int_value: _Optional[int] = ..., string_value: _Optional[str] = ...) -> None: ...

class GameOption(_message.Message):
    __slots__ = ("name", "default_value", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    default_value: OptionValue
    description: str
    def __init__(self, name: _Optional[str] = ..., default_value: _Optional[_Union[OptionValue, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("name", "title", "min_players", "max_players", "player_counts", "information_type", "has_chance", "options", "description", "typed_state", "kernel_available", "client_sees_chance", "state_schema", "state_formats", "catalogue", "hint_iterations", "review_iterations")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_COUNTS_FIELD_NUMBER: _ClassVar[int]
    INFORMATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    HAS_CHANCE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TYPED_STATE_FIELD_NUMBER: _ClassVar[int]
    KERNEL_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEES_CHANCE_FIELD_NUMBER: _ClassVar[int]
    STATE_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    STATE_FORMATS_FIELD_NUMBER: _ClassVar[int]
    CATALOGUE_FIELD_NUMBER: _ClassVar[int]
    HINT_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    REVIEW_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    min_players: int
    max_players: int
    player_counts: _containers.RepeatedScalarFieldContainer[int]
    information_type: InformationType
    has_chance: bool
    options: _containers.RepeatedCompositeFieldContainer[GameOption]
    description: str
    typed_state: bool
    kernel_available: bool
    client_sees_chance: bool
    state_schema: str
    state_formats: _containers.RepeatedScalarFieldContainer[StateFormat]
    catalogue: str
    hint_iterations: int
    review_iterations: int
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., player_counts: _Optional[_Iterable[int]] = ..., information_type: _Optional[_Union[InformationType, str]] = ..., has_chance: _Optional[bool] = ..., options: _Optional[_Iterable[_Union[GameOption, _Mapping]]] = ..., description: _Optional[str] = ..., typed_state: _Optional[bool] = ..., kernel_available: _Optional[bool] = ..., client_sees_chance: _Optional[bool] = ..., state_schema: _Optional[str] = ..., state_formats: _Optional[_Iterable[_Union[StateFormat, str]]] = ..., catalogue: _Optional[str] = ..., hint_iterations: _Optional[int] = ..., review_iterations: _Optional[int] = ...) -> None: ...

class ServerLimits(_message.Message):
    __slots__ = ("max_iterations", "max_time_ms", "default_iterations", "max_playouts", "default_playouts", "min_update_interval_ms", "workers", "max_queue", "max_message_bytes", "max_queue_wait_ms", "max_searches_per_client", "max_search_memory_bytes", "max_concurrent_rpcs", "max_review_decisions")
    MAX_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    MIN_UPDATE_INTERVAL_MS_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    MAX_QUEUE_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_QUEUE_WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEARCHES_PER_CLIENT_FIELD_NUMBER: _ClassVar[int]
    MAX_SEARCH_MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_RPCS_FIELD_NUMBER: _ClassVar[int]
    MAX_REVIEW_DECISIONS_FIELD_NUMBER: _ClassVar[int]
    max_iterations: int
    max_time_ms: int
    default_iterations: int
    max_playouts: int
    default_playouts: int
    min_update_interval_ms: int
    workers: int
    max_queue: int
    max_message_bytes: int
    max_queue_wait_ms: int
    max_searches_per_client: int
    max_search_memory_bytes: int
    max_concurrent_rpcs: int
    max_review_decisions: int
    def __init__(self, max_iterations: _Optional[int] = ..., max_time_ms: _Optional[int] = ..., default_iterations: _Optional[int] = ..., max_playouts: _Optional[int] = ..., default_playouts: _Optional[int] = ..., min_update_interval_ms: _Optional[int] = ..., workers: _Optional[int] = ..., max_queue: _Optional[int] = ..., max_message_bytes: _Optional[int] = ..., max_queue_wait_ms: _Optional[int] = ..., max_searches_per_client: _Optional[int] = ..., max_search_memory_bytes: _Optional[int] = ..., max_concurrent_rpcs: _Optional[int] = ..., max_review_decisions: _Optional[int] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "limits")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    limits: ServerLimits
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ..., limits: _Optional[_Union[ServerLimits, _Mapping]] = ...) -> None: ...

class GameState(_message.Message):
    __slots__ = ("samara", "opaque", "json", "oh_my_goods", "json_object", "record", "sealed", "observer_seat")
    SAMARA_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    OH_MY_GOODS_FIELD_NUMBER: _ClassVar[int]
    JSON_OBJECT_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    SEALED_FIELD_NUMBER: _ClassVar[int]
    OBSERVER_SEAT_FIELD_NUMBER: _ClassVar[int]
    samara: SamaraState
    opaque: bytes
    json: str
    oh_my_goods: OhMyGoodsState
    json_object: _struct_pb2.Struct
    record: GameRecord
    sealed: bytes
    observer_seat: int
    def __init__(self, samara: _Optional[_Union[SamaraState, _Mapping]] = ..., opaque: _Optional[bytes] = ..., json: _Optional[str] = ..., oh_my_goods: _Optional[_Union[OhMyGoodsState, _Mapping]] = ..., json_object: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ..., sealed: _Optional[bytes] = ..., observer_seat: _Optional[int] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("game", "num_players", "options", "seed", "initial", "moves")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: OptionValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[OptionValue, _Mapping]] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    game: str
    num_players: int
    options: _containers.MessageMap[str, OptionValue]
    seed: int
    initial: _struct_pb2.Struct
    moves: _containers.RepeatedCompositeFieldContainer[Move]
    def __init__(self, game: _Optional[str] = ..., num_players: _Optional[int] = ..., options: _Optional[_Mapping[str, OptionValue]] = ..., seed: _Optional[int] = ..., initial: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("id", "text")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    id: int
    text: str
    def __init__(self, id: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class GameStatus(_message.Message):
    __slots__ = ("game", "num_players", "current_player", "terminal", "chance", "scores", "ranking", "score_breakdown", "solo_target", "solo_result")
    GAME_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    SCORE_BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    SOLO_TARGET_FIELD_NUMBER: _ClassVar[int]
    SOLO_RESULT_FIELD_NUMBER: _ClassVar[int]
    game: str
    num_players: int
    current_player: int
    terminal: bool
    chance: bool
    scores: _containers.RepeatedScalarFieldContainer[float]
    ranking: _containers.RepeatedCompositeFieldContainer[Place]
    score_breakdown: _containers.RepeatedCompositeFieldContainer[ScoreBreakdown]
    solo_target: float
    solo_result: str
    def __init__(self, game: _Optional[str] = ..., num_players: _Optional[int] = ..., current_player: _Optional[int] = ..., terminal: _Optional[bool] = ..., chance: _Optional[bool] = ..., scores: _Optional[_Iterable[float]] = ..., ranking: _Optional[_Iterable[_Union[Place, _Mapping]]] = ..., score_breakdown: _Optional[_Iterable[_Union[ScoreBreakdown, _Mapping]]] = ..., solo_target: _Optional[float] = ..., solo_result: _Optional[str] = ...) -> None: ...

class ScoreBreakdown(_message.Message):
    __slots__ = ("parts",)
    PARTS_FIELD_NUMBER: _ClassVar[int]
    parts: _containers.RepeatedCompositeFieldContainer[ScorePart]
    def __init__(self, parts: _Optional[_Iterable[_Union[ScorePart, _Mapping]]] = ...) -> None: ...

class ScorePart(_message.Message):
    __slots__ = ("source", "points")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    source: str
    points: float
    def __init__(self, source: _Optional[str] = ..., points: _Optional[float] = ...) -> None: ...

class Place(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...

class ChanceOutcome(_message.Message):
    __slots__ = ("move", "probability")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    move: Move
    probability: float
    def __init__(self, move: _Optional[_Union[Move, _Mapping]] = ..., probability: _Optional[float] = ...) -> None: ...

class NewGameRequest(_message.Message):
    __slots__ = ("game", "num_players", "seed", "options", "state_format", "observer_seat")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: OptionValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[OptionValue, _Mapping]] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    STATE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    OBSERVER_SEAT_FIELD_NUMBER: _ClassVar[int]
    game: str
    num_players: int
    seed: int
    options: _containers.MessageMap[str, OptionValue]
    state_format: StateFormat
    observer_seat: int
    def __init__(self, game: _Optional[str] = ..., num_players: _Optional[int] = ..., seed: _Optional[int] = ..., options: _Optional[_Mapping[str, OptionValue]] = ..., state_format: _Optional[_Union[StateFormat, str]] = ..., observer_seat: _Optional[int] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("state", "status", "render", "seed", "view")
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RENDER_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    status: GameStatus
    render: str
    seed: int
    view: _struct_pb2.Struct
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., status: _Optional[_Union[GameStatus, _Mapping]] = ..., render: _Optional[str] = ..., seed: _Optional[int] = ..., view: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class LegalMovesRequest(_message.Message):
    __slots__ = ("state", "seat", "include_render")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_RENDER_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    seat: int
    include_render: bool
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., seat: _Optional[int] = ..., include_render: _Optional[bool] = ...) -> None: ...

class LegalMovesResponse(_message.Message):
    __slots__ = ("status", "moves", "chance_outcomes", "render", "moves_hidden")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    CHANCE_OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    RENDER_FIELD_NUMBER: _ClassVar[int]
    MOVES_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    status: GameStatus
    moves: _containers.RepeatedCompositeFieldContainer[Move]
    chance_outcomes: _containers.RepeatedCompositeFieldContainer[ChanceOutcome]
    render: str
    moves_hidden: bool
    def __init__(self, status: _Optional[_Union[GameStatus, _Mapping]] = ..., moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., chance_outcomes: _Optional[_Iterable[_Union[ChanceOutcome, _Mapping]]] = ..., render: _Optional[str] = ..., moves_hidden: _Optional[bool] = ...) -> None: ...

class CheckMoveRequest(_message.Message):
    __slots__ = ("state", "move", "seat")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    move: Move
    seat: int
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class CheckMoveResponse(_message.Message):
    __slots__ = ("legal", "move", "reason", "reason_code")
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REASON_CODE_FIELD_NUMBER: _ClassVar[int]
    legal: bool
    move: Move
    reason: str
    reason_code: IllegalReason
    def __init__(self, legal: _Optional[bool] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., reason: _Optional[str] = ..., reason_code: _Optional[_Union[IllegalReason, str]] = ...) -> None: ...

class ApplyMoveRequest(_message.Message):
    __slots__ = ("state", "move", "seat", "state_format")
    STATE_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STATE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    move: Move
    seat: int
    state_format: StateFormat
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., seat: _Optional[int] = ..., state_format: _Optional[_Union[StateFormat, str]] = ...) -> None: ...

class MoveRecord(_message.Message):
    __slots__ = ("player", "move", "events", "move_hidden")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    MOVE_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    player: int
    move: Move
    events: _containers.RepeatedScalarFieldContainer[str]
    move_hidden: bool
    def __init__(self, player: _Optional[int] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., events: _Optional[_Iterable[str]] = ..., move_hidden: _Optional[bool] = ...) -> None: ...

class ApplyMoveResponse(_message.Message):
    __slots__ = ("state", "record", "status", "render", "view")
    STATE_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RENDER_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    record: MoveRecord
    status: GameStatus
    render: str
    view: _struct_pb2.Struct
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., record: _Optional[_Union[MoveRecord, _Mapping]] = ..., status: _Optional[_Union[GameStatus, _Mapping]] = ..., render: _Optional[str] = ..., view: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class SearchBudget(_message.Message):
    __slots__ = ("iterations", "time_limit_ms")
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    iterations: int
    time_limit_ms: int
    def __init__(self, iterations: _Optional[int] = ..., time_limit_ms: _Optional[int] = ...) -> None: ...

class SearchStatistics(_message.Message):
    __slots__ = ("win_shares", "mean_scores")
    WIN_SHARES_FIELD_NUMBER: _ClassVar[int]
    MEAN_SCORES_FIELD_NUMBER: _ClassVar[int]
    win_shares: _containers.RepeatedScalarFieldContainer[float]
    mean_scores: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, win_shares: _Optional[_Iterable[float]] = ..., mean_scores: _Optional[_Iterable[float]] = ...) -> None: ...

class MoveAnalysis(_message.Message):
    __slots__ = ("move", "visits", "win_probabilities", "expected_scores", "win_probability", "search_statistics")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    VISITS_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITIES_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SCORES_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    SEARCH_STATISTICS_FIELD_NUMBER: _ClassVar[int]
    move: Move
    visits: int
    win_probabilities: _containers.RepeatedScalarFieldContainer[float]
    expected_scores: _containers.RepeatedScalarFieldContainer[float]
    win_probability: float
    search_statistics: SearchStatistics
    def __init__(self, move: _Optional[_Union[Move, _Mapping]] = ..., visits: _Optional[int] = ..., win_probabilities: _Optional[_Iterable[float]] = ..., expected_scores: _Optional[_Iterable[float]] = ..., win_probability: _Optional[float] = ..., search_statistics: _Optional[_Union[SearchStatistics, _Mapping]] = ...) -> None: ...

class Analysis(_message.Message):
    __slots__ = ("player", "best_move", "iterations", "elapsed_seconds", "win_probabilities", "expected_scores", "moves", "principal_variation", "stop_reason", "target", "queued_seconds", "search_statistics")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    BEST_MOVE_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITIES_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SCORES_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_VARIATION_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    QUEUED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEARCH_STATISTICS_FIELD_NUMBER: _ClassVar[int]
    player: int
    best_move: Move
    iterations: int
    elapsed_seconds: float
    win_probabilities: _containers.RepeatedScalarFieldContainer[float]
    expected_scores: _containers.RepeatedScalarFieldContainer[float]
    moves: _containers.RepeatedCompositeFieldContainer[MoveAnalysis]
    principal_variation: _containers.RepeatedCompositeFieldContainer[Move]
    stop_reason: SearchStopReason
    target: float
    queued_seconds: float
    search_statistics: SearchStatistics
    def __init__(self, player: _Optional[int] = ..., best_move: _Optional[_Union[Move, _Mapping]] = ..., iterations: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ..., win_probabilities: _Optional[_Iterable[float]] = ..., expected_scores: _Optional[_Iterable[float]] = ..., moves: _Optional[_Iterable[_Union[MoveAnalysis, _Mapping]]] = ..., principal_variation: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., stop_reason: _Optional[_Union[SearchStopReason, str]] = ..., target: _Optional[float] = ..., queued_seconds: _Optional[float] = ..., search_statistics: _Optional[_Union[SearchStatistics, _Mapping]] = ...) -> None: ...

class BestMoveRequest(_message.Message):
    __slots__ = ("state", "seat", "budget", "seed", "exploration", "max_candidates", "level", "play", "state_format")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EXPLORATION_FIELD_NUMBER: _ClassVar[int]
    MAX_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    STATE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    seat: int
    budget: SearchBudget
    seed: int
    exploration: float
    max_candidates: int
    level: int
    play: bool
    state_format: StateFormat
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., seat: _Optional[int] = ..., budget: _Optional[_Union[SearchBudget, _Mapping]] = ..., seed: _Optional[int] = ..., exploration: _Optional[float] = ..., max_candidates: _Optional[int] = ..., level: _Optional[int] = ..., play: _Optional[bool] = ..., state_format: _Optional[_Union[StateFormat, str]] = ...) -> None: ...

class BestMoveResponse(_message.Message):
    __slots__ = ("move", "analysis", "state", "record", "status", "render", "view")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    ANALYSIS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RENDER_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    move: Move
    analysis: Analysis
    state: GameState
    record: MoveRecord
    status: GameStatus
    render: str
    view: _struct_pb2.Struct
    def __init__(self, move: _Optional[_Union[Move, _Mapping]] = ..., analysis: _Optional[_Union[Analysis, _Mapping]] = ..., state: _Optional[_Union[GameState, _Mapping]] = ..., record: _Optional[_Union[MoveRecord, _Mapping]] = ..., status: _Optional[_Union[GameStatus, _Mapping]] = ..., render: _Optional[str] = ..., view: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class AnalyzeRequest(_message.Message):
    __slots__ = ("state", "seat", "budget", "seed", "exploration", "max_candidates", "update_interval_ms", "level")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EXPLORATION_FIELD_NUMBER: _ClassVar[int]
    MAX_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    UPDATE_INTERVAL_MS_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    seat: int
    budget: SearchBudget
    seed: int
    exploration: float
    max_candidates: int
    update_interval_ms: int
    level: int
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., seat: _Optional[int] = ..., budget: _Optional[_Union[SearchBudget, _Mapping]] = ..., seed: _Optional[int] = ..., exploration: _Optional[float] = ..., max_candidates: _Optional[int] = ..., update_interval_ms: _Optional[int] = ..., level: _Optional[int] = ...) -> None: ...

class AnalyzeResponse(_message.Message):
    __slots__ = ("analysis", "final", "sequence")
    ANALYSIS_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    analysis: Analysis
    final: bool
    sequence: int
    def __init__(self, analysis: _Optional[_Union[Analysis, _Mapping]] = ..., final: _Optional[bool] = ..., sequence: _Optional[int] = ...) -> None: ...

class EstimateScoresRequest(_message.Message):
    __slots__ = ("state", "playouts", "seed")
    STATE_FIELD_NUMBER: _ClassVar[int]
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    playouts: int
    seed: int
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., playouts: _Optional[int] = ..., seed: _Optional[int] = ...) -> None: ...

class SeatEstimate(_message.Message):
    __slots__ = ("seat", "win_probability", "score_mean", "score_stddev", "score_min", "score_max", "playout_win_share", "playout_score_mean")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    SCORE_MEAN_FIELD_NUMBER: _ClassVar[int]
    SCORE_STDDEV_FIELD_NUMBER: _ClassVar[int]
    SCORE_MIN_FIELD_NUMBER: _ClassVar[int]
    SCORE_MAX_FIELD_NUMBER: _ClassVar[int]
    PLAYOUT_WIN_SHARE_FIELD_NUMBER: _ClassVar[int]
    PLAYOUT_SCORE_MEAN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    win_probability: float
    score_mean: float
    score_stddev: float
    score_min: float
    score_max: float
    playout_win_share: float
    playout_score_mean: float
    def __init__(self, seat: _Optional[int] = ..., win_probability: _Optional[float] = ..., score_mean: _Optional[float] = ..., score_stddev: _Optional[float] = ..., score_min: _Optional[float] = ..., score_max: _Optional[float] = ..., playout_win_share: _Optional[float] = ..., playout_score_mean: _Optional[float] = ...) -> None: ...

class EstimateScoresResponse(_message.Message):
    __slots__ = ("seats", "playouts", "elapsed_seconds")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatEstimate]
    playouts: int
    elapsed_seconds: float
    def __init__(self, seats: _Optional[_Iterable[_Union[SeatEstimate, _Mapping]]] = ..., playouts: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ...) -> None: ...

class ReviewGameRequest(_message.Message):
    __slots__ = ("state", "seat", "budget", "seed")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    state: GameState
    seat: int
    budget: SearchBudget
    seed: int
    def __init__(self, state: _Optional[_Union[GameState, _Mapping]] = ..., seat: _Optional[int] = ..., budget: _Optional[_Union[SearchBudget, _Mapping]] = ..., seed: _Optional[int] = ...) -> None: ...

class ReviewedMove(_message.Message):
    __slots__ = ("move", "visits", "win_probability", "expected_scores", "margin")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    VISITS_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SCORES_FIELD_NUMBER: _ClassVar[int]
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    move: Move
    visits: int
    win_probability: float
    expected_scores: _containers.RepeatedScalarFieldContainer[float]
    margin: float
    def __init__(self, move: _Optional[_Union[Move, _Mapping]] = ..., visits: _Optional[int] = ..., win_probability: _Optional[float] = ..., expected_scores: _Optional[_Iterable[float]] = ..., margin: _Optional[float] = ...) -> None: ...

class ReviewedDecision(_message.Message):
    __slots__ = ("turn", "seat", "choices", "played", "best", "win_probability_loss", "score_loss", "label", "accuracy", "principal_variation", "target", "iterations", "stop_reason", "index", "total", "view", "status", "swing")
    TURN_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_LOSS_FIELD_NUMBER: _ClassVar[int]
    SCORE_LOSS_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_VARIATION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SWING_FIELD_NUMBER: _ClassVar[int]
    turn: int
    seat: int
    choices: int
    played: ReviewedMove
    best: ReviewedMove
    win_probability_loss: float
    score_loss: float
    label: ReviewLabel
    accuracy: float
    principal_variation: _containers.RepeatedCompositeFieldContainer[Move]
    target: float
    iterations: int
    stop_reason: SearchStopReason
    index: int
    total: int
    view: _struct_pb2.Struct
    status: GameStatus
    swing: ForecastSwing
    def __init__(self, turn: _Optional[int] = ..., seat: _Optional[int] = ..., choices: _Optional[int] = ..., played: _Optional[_Union[ReviewedMove, _Mapping]] = ..., best: _Optional[_Union[ReviewedMove, _Mapping]] = ..., win_probability_loss: _Optional[float] = ..., score_loss: _Optional[float] = ..., label: _Optional[_Union[ReviewLabel, str]] = ..., accuracy: _Optional[float] = ..., principal_variation: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., target: _Optional[float] = ..., iterations: _Optional[int] = ..., stop_reason: _Optional[_Union[SearchStopReason, str]] = ..., index: _Optional[int] = ..., total: _Optional[int] = ..., view: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., status: _Optional[_Union[GameStatus, _Mapping]] = ..., swing: _Optional[_Union[ForecastSwing, _Mapping]] = ...) -> None: ...

class ForecastSwing(_message.Message):
    __slots__ = ("since_turn", "win_probability", "margin", "opponents", "chance", "notable", "drop")
    SINCE_TURN_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    NOTABLE_FIELD_NUMBER: _ClassVar[int]
    DROP_FIELD_NUMBER: _ClassVar[int]
    since_turn: int
    win_probability: float
    margin: float
    opponents: bool
    chance: bool
    notable: bool
    drop: bool
    def __init__(self, since_turn: _Optional[int] = ..., win_probability: _Optional[float] = ..., margin: _Optional[float] = ..., opponents: _Optional[bool] = ..., chance: _Optional[bool] = ..., notable: _Optional[bool] = ..., drop: _Optional[bool] = ...) -> None: ...

class KeyMoment(_message.Message):
    __slots__ = ("turn", "index", "reasons")
    TURN_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    turn: int
    index: int
    reasons: _containers.RepeatedScalarFieldContainer[KeyMomentReason]
    def __init__(self, turn: _Optional[int] = ..., index: _Optional[int] = ..., reasons: _Optional[_Iterable[_Union[KeyMomentReason, str]]] = ...) -> None: ...

class ReviewLabelCounts(_message.Message):
    __slots__ = ("best", "good", "inaccuracy", "mistake", "blunder")
    BEST_FIELD_NUMBER: _ClassVar[int]
    GOOD_FIELD_NUMBER: _ClassVar[int]
    INACCURACY_FIELD_NUMBER: _ClassVar[int]
    MISTAKE_FIELD_NUMBER: _ClassVar[int]
    BLUNDER_FIELD_NUMBER: _ClassVar[int]
    best: int
    good: int
    inaccuracy: int
    mistake: int
    blunder: int
    def __init__(self, best: _Optional[int] = ..., good: _Optional[int] = ..., inaccuracy: _Optional[int] = ..., mistake: _Optional[int] = ..., blunder: _Optional[int] = ...) -> None: ...

class ReviewSummary(_message.Message):
    __slots__ = ("seat", "decisions", "counts", "average_win_probability_loss", "average_score_loss", "accuracy", "complete", "key_moments")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_WIN_PROBABILITY_LOSS_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_SCORE_LOSS_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    KEY_MOMENTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    decisions: int
    counts: ReviewLabelCounts
    average_win_probability_loss: float
    average_score_loss: float
    accuracy: float
    complete: bool
    key_moments: _containers.RepeatedCompositeFieldContainer[KeyMoment]
    def __init__(self, seat: _Optional[int] = ..., decisions: _Optional[int] = ..., counts: _Optional[_Union[ReviewLabelCounts, _Mapping]] = ..., average_win_probability_loss: _Optional[float] = ..., average_score_loss: _Optional[float] = ..., accuracy: _Optional[float] = ..., complete: _Optional[bool] = ..., key_moments: _Optional[_Iterable[_Union[KeyMoment, _Mapping]]] = ...) -> None: ...

class ReviewGameResponse(_message.Message):
    __slots__ = ("decision", "summary")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    decision: ReviewedDecision
    summary: ReviewSummary
    def __init__(self, decision: _Optional[_Union[ReviewedDecision, _Mapping]] = ..., summary: _Optional[_Union[ReviewSummary, _Mapping]] = ...) -> None: ...

class SamaraState(_message.Message):
    __slots__ = ("version", "num_players", "options", "month", "spots", "unused_tiles", "track", "foremen", "pending")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    MONTH_FIELD_NUMBER: _ClassVar[int]
    SPOTS_FIELD_NUMBER: _ClassVar[int]
    UNUSED_TILES_FIELD_NUMBER: _ClassVar[int]
    TRACK_FIELD_NUMBER: _ClassVar[int]
    FOREMEN_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    version: int
    num_players: int
    options: SamaraOptions
    month: int
    spots: _containers.RepeatedCompositeFieldContainer[SamaraSpot]
    unused_tiles: _containers.RepeatedScalarFieldContainer[str]
    track: _containers.RepeatedCompositeFieldContainer[SamaraTrackMonth]
    foremen: _containers.RepeatedCompositeFieldContainer[SamaraForeman]
    pending: _containers.RepeatedCompositeFieldContainer[SamaraDecision]
    def __init__(self, version: _Optional[int] = ..., num_players: _Optional[int] = ..., options: _Optional[_Union[SamaraOptions, _Mapping]] = ..., month: _Optional[int] = ..., spots: _Optional[_Iterable[_Union[SamaraSpot, _Mapping]]] = ..., unused_tiles: _Optional[_Iterable[str]] = ..., track: _Optional[_Iterable[_Union[SamaraTrackMonth, _Mapping]]] = ..., foremen: _Optional[_Iterable[_Union[SamaraForeman, _Mapping]]] = ..., pending: _Optional[_Iterable[_Union[SamaraDecision, _Mapping]]] = ...) -> None: ...

class SamaraOptions(_message.Message):
    __slots__ = ("powers",)
    POWERS_FIELD_NUMBER: _ClassVar[int]
    powers: bool
    def __init__(self, powers: _Optional[bool] = ...) -> None: ...

class SamaraTools(_message.Message):
    __slots__ = ("saw", "compass", "square", "glass_a", "glass_b")
    SAW_FIELD_NUMBER: _ClassVar[int]
    COMPASS_FIELD_NUMBER: _ClassVar[int]
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    GLASS_A_FIELD_NUMBER: _ClassVar[int]
    GLASS_B_FIELD_NUMBER: _ClassVar[int]
    saw: int
    compass: int
    square: int
    glass_a: int
    glass_b: int
    def __init__(self, saw: _Optional[int] = ..., compass: _Optional[int] = ..., square: _Optional[int] = ..., glass_a: _Optional[int] = ..., glass_b: _Optional[int] = ...) -> None: ...

class SamaraSpot(_message.Message):
    __slots__ = ("spot", "tile", "tools")
    SPOT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    spot: str
    tile: str
    tools: SamaraTools
    def __init__(self, spot: _Optional[str] = ..., tile: _Optional[str] = ..., tools: _Optional[_Union[SamaraTools, _Mapping]] = ...) -> None: ...

class SamaraWorker(_message.Message):
    __slots__ = ("owner", "gender", "men", "women")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    GENDER_FIELD_NUMBER: _ClassVar[int]
    MEN_FIELD_NUMBER: _ClassVar[int]
    WOMEN_FIELD_NUMBER: _ClassVar[int]
    owner: int
    gender: SamaraGender
    men: int
    women: int
    def __init__(self, owner: _Optional[int] = ..., gender: _Optional[_Union[SamaraGender, str]] = ..., men: _Optional[int] = ..., women: _Optional[int] = ...) -> None: ...

class SamaraTrackMonth(_message.Message):
    __slots__ = ("month", "workers")
    MONTH_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    month: int
    workers: _containers.RepeatedCompositeFieldContainer[SamaraWorker]
    def __init__(self, month: _Optional[int] = ..., workers: _Optional[_Iterable[_Union[SamaraWorker, _Mapping]]] = ...) -> None: ...

class SamaraPawns(_message.Message):
    __slots__ = ("men", "women")
    MEN_FIELD_NUMBER: _ClassVar[int]
    WOMEN_FIELD_NUMBER: _ClassVar[int]
    men: int
    women: int
    def __init__(self, men: _Optional[int] = ..., women: _Optional[int] = ...) -> None: ...

class SamaraForeman(_message.Message):
    __slots__ = ("tools", "pawns", "buildings", "powers")
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    PAWNS_FIELD_NUMBER: _ClassVar[int]
    BUILDINGS_FIELD_NUMBER: _ClassVar[int]
    POWERS_FIELD_NUMBER: _ClassVar[int]
    tools: SamaraTools
    pawns: SamaraPawns
    buildings: _containers.RepeatedScalarFieldContainer[str]
    powers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tools: _Optional[_Union[SamaraTools, _Mapping]] = ..., pawns: _Optional[_Union[SamaraPawns, _Mapping]] = ..., buildings: _Optional[_Iterable[str]] = ..., powers: _Optional[_Iterable[str]] = ...) -> None: ...

class SamaraDecision(_message.Message):
    __slots__ = ("kind", "player", "target", "spot", "count", "only")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    SPOT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    ONLY_FIELD_NUMBER: _ClassVar[int]
    kind: SamaraDecisionKind
    player: int
    target: int
    spot: str
    count: int
    only: SamaraToolFilter
    def __init__(self, kind: _Optional[_Union[SamaraDecisionKind, str]] = ..., player: _Optional[int] = ..., target: _Optional[int] = ..., spot: _Optional[str] = ..., count: _Optional[int] = ..., only: _Optional[_Union[SamaraToolFilter, str]] = ...) -> None: ...

class OhMyGoodsState(_message.Message):
    __slots__ = ("version", "num_players", "options", "rng", "round", "active", "final_round", "phase", "turn", "deck", "discard", "display", "sunset_at", "pool", "starting_hands", "players", "act", "shown_goods", "reshuffled")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RNG_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    FINAL_ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    SUNSET_AT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    STARTING_HANDS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    SHOWN_GOODS_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLED_FIELD_NUMBER: _ClassVar[int]
    version: int
    num_players: int
    options: OhMyGoodsOptions
    rng: str
    round: int
    active: int
    final_round: int
    phase: OhMyGoodsPhase
    turn: int
    deck: _containers.RepeatedScalarFieldContainer[str]
    discard: _containers.RepeatedScalarFieldContainer[str]
    display: _containers.RepeatedScalarFieldContainer[str]
    sunset_at: int
    pool: _containers.RepeatedCompositeFieldContainer[OhMyGoodsPoolAssistant]
    starting_hands: _containers.RepeatedScalarFieldContainer[int]
    players: _containers.RepeatedCompositeFieldContainer[OhMyGoodsPlayer]
    act: OhMyGoodsAct
    shown_goods: _containers.RepeatedScalarFieldContainer[str]
    reshuffled: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, version: _Optional[int] = ..., num_players: _Optional[int] = ..., options: _Optional[_Union[OhMyGoodsOptions, _Mapping]] = ..., rng: _Optional[str] = ..., round: _Optional[int] = ..., active: _Optional[int] = ..., final_round: _Optional[int] = ..., phase: _Optional[_Union[OhMyGoodsPhase, str]] = ..., turn: _Optional[int] = ..., deck: _Optional[_Iterable[str]] = ..., discard: _Optional[_Iterable[str]] = ..., display: _Optional[_Iterable[str]] = ..., sunset_at: _Optional[int] = ..., pool: _Optional[_Iterable[_Union[OhMyGoodsPoolAssistant, _Mapping]]] = ..., starting_hands: _Optional[_Iterable[int]] = ..., players: _Optional[_Iterable[_Union[OhMyGoodsPlayer, _Mapping]]] = ..., act: _Optional[_Union[OhMyGoodsAct, _Mapping]] = ..., shown_goods: _Optional[_Iterable[str]] = ..., reshuffled: _Optional[_Iterable[str]] = ...) -> None: ...

class OhMyGoodsOptions(_message.Message):
    __slots__ = ("second_edition",)
    SECOND_EDITION_FIELD_NUMBER: _ClassVar[int]
    second_edition: bool
    def __init__(self, second_edition: _Optional[bool] = ...) -> None: ...

class OhMyGoodsPoolAssistant(_message.Message):
    __slots__ = ("assistant", "face")
    ASSISTANT_FIELD_NUMBER: _ClassVar[int]
    FACE_FIELD_NUMBER: _ClassVar[int]
    assistant: str
    face: int
    def __init__(self, assistant: _Optional[str] = ..., face: _Optional[int] = ...) -> None: ...

class OhMyGoodsHiredAssistant(_message.Message):
    __slots__ = ("assistant", "face", "slot")
    ASSISTANT_FIELD_NUMBER: _ClassVar[int]
    FACE_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    assistant: str
    face: int
    slot: int
    def __init__(self, assistant: _Optional[str] = ..., face: _Optional[int] = ..., slot: _Optional[int] = ...) -> None: ...

class OhMyGoodsGoods(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class OhMyGoodsWork(_message.Message):
    __slots__ = ("slot", "mode")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    slot: int
    mode: OhMyGoodsWorkMode
    def __init__(self, slot: _Optional[int] = ..., mode: _Optional[_Union[OhMyGoodsWorkMode, str]] = ...) -> None: ...

class OhMyGoodsPlayer(_message.Message):
    __slots__ = ("charburner", "worker", "hand", "buildings", "goods", "assistants", "work", "plan", "chosen")
    CHARBURNER_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    BUILDINGS_FIELD_NUMBER: _ClassVar[int]
    GOODS_FIELD_NUMBER: _ClassVar[int]
    ASSISTANTS_FIELD_NUMBER: _ClassVar[int]
    WORK_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_FIELD_NUMBER: _ClassVar[int]
    charburner: str
    worker: str
    hand: _containers.RepeatedScalarFieldContainer[str]
    buildings: _containers.RepeatedScalarFieldContainer[str]
    goods: _containers.RepeatedCompositeFieldContainer[OhMyGoodsGoods]
    assistants: _containers.RepeatedCompositeFieldContainer[OhMyGoodsHiredAssistant]
    work: OhMyGoodsWork
    plan: str
    chosen: int
    def __init__(self, charburner: _Optional[str] = ..., worker: _Optional[str] = ..., hand: _Optional[_Iterable[str]] = ..., buildings: _Optional[_Iterable[str]] = ..., goods: _Optional[_Iterable[_Union[OhMyGoodsGoods, _Mapping]]] = ..., assistants: _Optional[_Iterable[_Union[OhMyGoodsHiredAssistant, _Mapping]]] = ..., work: _Optional[_Union[OhMyGoodsWork, _Mapping]] = ..., plan: _Optional[str] = ..., chosen: _Optional[int] = ...) -> None: ...

class OhMyGoodsPayment(_message.Message):
    __slots__ = ("due", "paid", "last", "purpose", "arg")
    DUE_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    PURPOSE_FIELD_NUMBER: _ClassVar[int]
    ARG_FIELD_NUMBER: _ClassVar[int]
    due: int
    paid: int
    last: int
    purpose: OhMyGoodsPayPurpose
    arg: int
    def __init__(self, due: _Optional[int] = ..., paid: _Optional[int] = ..., last: _Optional[int] = ..., purpose: _Optional[_Union[OhMyGoodsPayPurpose, str]] = ..., arg: _Optional[int] = ...) -> None: ...

class OhMyGoodsAct(_message.Message):
    __slots__ = ("step", "handled", "running", "need", "slack", "produce_count", "chain_slot", "hired", "shifted", "pay")
    STEP_FIELD_NUMBER: _ClassVar[int]
    HANDLED_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    NEED_FIELD_NUMBER: _ClassVar[int]
    SLACK_FIELD_NUMBER: _ClassVar[int]
    PRODUCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SLOT_FIELD_NUMBER: _ClassVar[int]
    HIRED_FIELD_NUMBER: _ClassVar[int]
    SHIFTED_FIELD_NUMBER: _ClassVar[int]
    PAY_FIELD_NUMBER: _ClassVar[int]
    step: OhMyGoodsStep
    handled: _containers.RepeatedScalarFieldContainer[int]
    running: int
    need: _containers.RepeatedScalarFieldContainer[int]
    slack: int
    produce_count: int
    chain_slot: int
    hired: str
    shifted: _containers.RepeatedScalarFieldContainer[str]
    pay: OhMyGoodsPayment
    def __init__(self, step: _Optional[_Union[OhMyGoodsStep, str]] = ..., handled: _Optional[_Iterable[int]] = ..., running: _Optional[int] = ..., need: _Optional[_Iterable[int]] = ..., slack: _Optional[int] = ..., produce_count: _Optional[int] = ..., chain_slot: _Optional[int] = ..., hired: _Optional[str] = ..., shifted: _Optional[_Iterable[str]] = ..., pay: _Optional[_Union[OhMyGoodsPayment, _Mapping]] = ...) -> None: ...

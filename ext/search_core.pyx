# cython: language_level=3
"""The MCTS and ISMCTS trees in C, over a kernel's positions: the compiled twins of
``engine.search.mcts.PythonMCTSTree`` and ``engine.search.ismcts.PythonISMCTSTree``,
behind the same interface (``engine.search.tree``) and built from the same
``TreeSettings``.

The Python trees are the oracle: with the same seed and iteration budget these trees
grow the same nodes, draw the same numbers (``random.Random``'s generator, stepped here
from a copy of its state, ``mersenne.pxi``), value leaves with the same evaluator (a full
random playout, a truncated one and the heuristic, or MAST playouts over the same table)
and so report the same visits, sums and principal variation, to the last bit;
``furnace check-search`` proves it position by position.  They know no game: a kernel
hands over its functions in a ``SearchOps`` table (``search_ops.pxi``) and its position
as a struct; no Python object is made per node or per iteration.

Nodes live in arrays that grow by doubling (an arena per tree: one allocation per array,
freed with the tree); a child is found from its parent and move through one open
addressing table for the whole tree.  The Python class that owns a tree
(``engine.search.mcts.MCTS``, ``engine.search.ismcts.ISMCTS``) keeps the budgets, the
analysis and everything else that happens once per search.
"""

from libc.math cimport exp, log, sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

include "search_ops.pxi"
include "move_slots.pxi"
include "splitmix64.pxi"

cdef enum:
    LEAF_ROLLOUT = 0      # random moves to the end
    LEAF_TRUNCATED = 1    # at most ``depth`` random moves, then the heuristic
    LEAF_MAST = 2         # MAST playouts (at most ``depth`` moves; 0: to the end)
    LEAF_LEARNED = 3      # at most ``depth`` random moves (0: none), then a linear model
                          # of each seat's features
    LEAF_PRIOR = 4        # at most ``depth`` moves drawn by a move prior, then the heuristic

#: Heuristic values this close to the best share the lead (engine.search.evaluate).
cdef double LEAD_TOLERANCE = 1e-9
cdef double LOGIT_LIMIT = 30.0     # engine.search.move_prior.LOGIT_LIMIT


ctypedef struct Utility:
    # engine.search._common.backup_values' parameters
    int k
    bint margin         # a margin scale is set
    double scale
    bint solo           # a one-seat game valued against its target
    double target
    double solo_scale


cdef inline double logistic(double z) noexcept nogil:
    # exp overflows past ~709; the utility is 0 to double precision long before
    return 0.0 if z > 700.0 else 1.0 / (1.0 + exp(z))


cdef void backup_values(const Utility* u, const double* scores, const double* shares,
                        double* out) noexcept nogil:
    """engine.search._common.backup_values: utilities, win shares, scores."""
    cdef int k = u.k
    cdef int seat, other
    cdef double rival, margin, value
    if u.solo and k == 1:
        value = logistic(-(scores[0] - u.target) / u.solo_scale)
        out[0] = value
        out[1] = value
        out[2] = scores[0]
        return
    for seat in range(k):
        out[k + seat] = shares[seat]
        out[2 * k + seat] = scores[seat]
    if not u.margin or k < 2:
        for seat in range(k):
            out[seat] = shares[seat]
        return
    for seat in range(k):
        rival = 0.0
        other = -1
        for j in range(k):
            if j != seat and (other < 0 or scores[j] > rival):
                rival = scores[j]
                other = j
        margin = scores[seat] - rival
        out[seat] = logistic(-margin / u.scale)


cdef void heuristic_outcome(const double* values, int k, double* scores,
                            double* shares) noexcept nogil:
    """engine.search.evaluate.heuristic_outcome: the values as scores, the win shared by
    the leaders."""
    cdef int seat, leaders = 0
    cdef double best = values[0]
    cdef double share
    for seat in range(1, k):
        if values[seat] > best:
            best = values[seat]
    for seat in range(k):
        scores[seat] = values[seat]
        if values[seat] >= best - LEAD_TOLERANCE:
            leaders += 1
    share = 1.0 / leaders
    for seat in range(k):
        shares[seat] = share if values[seat] >= best - LEAD_TOLERANCE else 0.0


cdef int mt_load(MT* g, object rng) except -1:
    """Copy a random.Random's state (``getstate()``) into ``g``."""
    version, words, _gauss = rng.getstate()
    if version != 3 or len(words) != MT_N + 1:
        raise ValueError("not a Mersenne Twister state of random.Random")
    for i in range(MT_N):
        g.state[i] = <uint32_t>words[i]
    g.index = <int>words[MT_N]
    return 0


cdef object mt_state(MT* g):
    """``g`` as the state tuple ``random.Random.setstate`` takes."""
    return (3, tuple([g.state[i] for i in range(MT_N)]) + (g.index,), None)


class TreeError(ValueError):
    """A position the compiled tree cannot go on from (no legal moves, a chance node, a
    position beyond the kernel's bounds)."""


cdef class CoreTree:
    """What both compiled trees share: the kernel, the generator, the leaf evaluator and
    the node arrays that every node has (visits, sums, prior)."""

    cdef const SearchOps* ops
    cdef const void* cat
    cdef object root_state          # the kernel position searched (kept alive)
    cdef void* root_struct
    cdef char* scratch              # the iteration's position
    cdef int64_t* moves             # the legal moves of the scratch position
    cdef int nmoves
    cdef int64_t* spare             # a second move buffer
    cdef int64_t* leaf_moves        # where the last ``play`` listed the next moves
    cdef int nleaf                  # how many, or UNLISTED
    cdef int32_t* kid_of            # per legal move: its child, or -1
    cdef int64_t* untried_tmp
    cdef MT mt
    cdef Words words
    cdef readonly int k
    cdef readonly int width
    cdef double c
    cdef Utility util
    cdef double prior_weight
    cdef Utility prior_util
    cdef int leaf_kind
    cdef long depth
    cdef double epsilon
    cdef Utility mast_util
    cdef object mast_arrays         # (values, counts, trace) numpy arrays, kept alive
    cdef double* mast_values
    cdef double* mast_counts
    cdef int* mast_trace
    cdef long mast_capacity
    cdef double* weights            # the learned leaf's model, nfeatures of them
    cdef double* feature_row
    cdef double* level_weights      # the scores' level: nfeatures over the seats' mean, then 1
    cdef double* feature_sums
    cdef double move_weight         # the learned move prior's weight (0: none)
    cdef double* move_weights       # its weights, nfeatures of them
    cdef double* seat_features      # every seat's features, k rows of nfeatures
    cdef double* playout_weights    # a prior playout's move prior (LEAF_PRIOR)
    cdef char* playout_copy         # a position a prior playout tries a move on
    cdef int64_t* playout_moves
    cdef int64_t* playout_spare
    cdef double* playout_cumulative
    # node arrays (SoA), grown together
    cdef long nnodes
    cdef long capacity
    cdef int64_t* n
    cdef double* acc
    cdef double* prior
    cdef double* bias               # exp of the move prior's logit of the node's move
    # a path from the root, grown as needed
    cdef int32_t* path
    cdef long path_cap
    # scratch for outcomes
    cdef double out_scores[8]
    cdef double out_shares[8]
    cdef double result[24]
    cdef double values8[8]

    def __dealloc__(self):
        free(self.weights)
        free(self.feature_row)
        free(self.level_weights)
        free(self.feature_sums)
        free(self.move_weights)
        free(self.seat_features)
        free(self.playout_weights)
        free(self.playout_copy)
        free(self.playout_moves)
        free(self.playout_spare)
        free(self.playout_cumulative)
        free(self.bias)
        free(self.scratch)
        free(self.moves)
        free(self.spare)
        free(self.kid_of)
        free(self.untried_tmp)
        free(self.n)
        free(self.acc)
        free(self.prior)
        free(self.path)

    cdef int setup(self, object ops_capsule, object state, object rng, object settings,
                   object leaf) except -1:
        """``settings``: an ``engine.search.tree.TreeSettings``.  ``leaf``: ("rollout",),
        ("truncated", depth), ("mast", epsilon, depth, margin_scale, solo, values, counts,
        trace) or ("learned", depth, weights, level_weights), the last empty for a model
        without a level (the evaluator's ``compiled_leaf``)."""
        cdef int num_players = settings.num_players
        selection = settings.selection
        solo = settings.solo
        handle = state.search_handle()
        self.ops = <const SearchOps*>PyCapsule_GetPointer(ops_capsule, b"furnace.search_ops")
        self.root_struct = PyCapsule_GetPointer(handle, b"furnace.position")
        self.cat = PyCapsule_GetContext(handle)
        self.root_state = state
        if num_players < 1 or num_players > self.ops.max_players or num_players > 8:
            raise ValueError(f"the compiled search takes 1-8 seats, not {num_players}")
        self.k = num_players
        self.width = 3 * num_players
        self.c = settings.c
        set_utility(&self.util, num_players, settings.margin_scale, solo)
        self.prior_weight = selection.prior_weight
        set_utility(&self.prior_util, num_players, selection.prior_scale, solo)
        self.move_weight = selection.move_bias
        if self.move_weight or leaf[0] == "prior":
            self.seat_features = <double*>malloc(num_players * self.ops.nfeatures
                                                 * sizeof(double))
            if self.seat_features == NULL:
                raise MemoryError()
        if self.move_weight:
            move_prior = selection.move_prior.weights
            if len(move_prior) != self.ops.nfeatures or self.ops.nfeatures == 0:
                raise ValueError(f"a move prior of {len(move_prior)} features for a kernel "
                                 f"of {self.ops.nfeatures}")
            self.move_weights = <double*>malloc(self.ops.nfeatures * sizeof(double))
            if self.move_weights == NULL:
                raise MemoryError()
            for i, weight in enumerate(move_prior):
                self.move_weights[i] = weight
        kind = leaf[0]
        if kind == "rollout":
            self.leaf_kind = LEAF_ROLLOUT
        elif kind == "truncated":
            if not self.ops.truncates:
                raise ValueError("this kernel plays its random playouts only to the end")
            self.leaf_kind = LEAF_TRUNCATED
            self.depth = leaf[1]
        elif kind == "mast":
            self.leaf_kind = LEAF_MAST
            self.epsilon = leaf[1]
            self.depth = leaf[2]
            set_utility(&self.mast_util, num_players, leaf[3], leaf[4])
            self.set_mast_table(leaf[5], leaf[6], leaf[7])
            if len(leaf) > 8:  # a value model after the playout, in place of heuristic()
                if not leaf[2]:
                    raise ValueError("a MAST playout to the end needs no value model")
                self.set_model(leaf[8], leaf[9])
        elif kind == "learned":
            if leaf[1] and not self.ops.truncates:
                raise ValueError("this kernel plays its random playouts only to the end")
            self.leaf_kind = LEAF_LEARNED
            self.depth = leaf[1]
            self.set_model(leaf[2], leaf[3])
        elif kind == "prior":
            if len(leaf[3]) != self.ops.nfeatures or self.ops.nfeatures == 0:
                raise ValueError(f"a move prior of {len(leaf[3])} features for a kernel "
                                 f"of {self.ops.nfeatures}")
            self.leaf_kind = LEAF_PRIOR
            self.depth = leaf[1]
            self.epsilon = leaf[2]
            self.playout_weights = <double*>malloc(self.ops.nfeatures * sizeof(double))
            self.playout_copy = <char*>malloc(self.ops.state_size)
            self.playout_moves = <int64_t*>malloc(self.ops.max_moves * sizeof(int64_t))
            self.playout_spare = <int64_t*>malloc(self.ops.max_moves * sizeof(int64_t))
            self.playout_cumulative = <double*>malloc(self.ops.max_moves * sizeof(double))
            if (self.playout_weights == NULL or self.playout_copy == NULL
                    or self.playout_moves == NULL or self.playout_spare == NULL
                    or self.playout_cumulative == NULL):
                raise MemoryError()
            for i, weight in enumerate(leaf[3]):
                self.playout_weights[i] = weight
        else:
            raise ValueError(f"unknown leaf evaluator {kind!r}")
        self.nleaf = UNLISTED
        mt_load(&self.mt, rng)
        self.words.mt = &self.mt
        self.words.rng = NULL
        self.scratch = <char*>malloc(self.ops.state_size)
        self.moves = <int64_t*>malloc(self.ops.max_moves * sizeof(int64_t))
        self.spare = <int64_t*>malloc(self.ops.max_moves * sizeof(int64_t))
        self.kid_of = <int32_t*>malloc(self.ops.max_moves * sizeof(int32_t))
        self.untried_tmp = <int64_t*>malloc(self.ops.max_moves * sizeof(int64_t))
        self.path_cap = 256
        self.path = <int32_t*>malloc(self.path_cap * sizeof(int32_t))
        if (self.scratch == NULL or self.moves == NULL or self.spare == NULL
                or self.kid_of == NULL or self.untried_tmp == NULL or self.path == NULL):
            raise MemoryError()
        return 0

    cdef int set_model(self, weights, level_weights) except -1:
        """A value model's weights over the kernel's features (and its level's, or none)."""
        if len(weights) != self.ops.nfeatures or self.ops.nfeatures == 0:
            raise ValueError(f"a model of {len(weights)} features for a kernel of "
                             f"{self.ops.nfeatures}")
        self.weights = <double*>malloc(self.ops.nfeatures * sizeof(double))
        self.feature_row = <double*>malloc(self.ops.nfeatures * sizeof(double))
        if self.weights == NULL or self.feature_row == NULL:
            raise MemoryError()
        for i, weight in enumerate(weights):
            self.weights[i] = weight
        if len(level_weights):
            if len(level_weights) != self.ops.nfeatures + 1:
                raise ValueError(f"a level of {len(level_weights)} weights for a kernel of "
                                 f"{self.ops.nfeatures} features")
            self.level_weights = <double*>malloc(len(level_weights) * sizeof(double))
            self.feature_sums = <double*>malloc(self.ops.nfeatures * sizeof(double))
            if self.level_weights == NULL or self.feature_sums == NULL:
                raise MemoryError()
            for i, weight in enumerate(level_weights):
                self.level_weights[i] = weight
        return 0

    cdef int set_mast_table(self, values, counts, trace) except -1:
        cdef double[::1] v = values
        cdef double[::1] cn = counts
        cdef int[::1] t = trace
        if v.shape[0] != self.k * (1 << MOVE_SLOT_BITS) or cn.shape[0] != v.shape[0]:
            raise ValueError("the MAST table does not fit the seats")
        self.mast_arrays = (values, counts, trace)
        self.mast_values = &v[0]
        self.mast_counts = &cn[0]
        self.mast_trace = &t[0] if t.shape[0] else NULL
        self.mast_capacity = t.shape[0]
        return 0

    def generator_state(self):
        """The generator's state, as ``random.Random.setstate`` takes it."""
        return mt_state(&self.mt)

    # -- nodes ---------------------------------------------------------------------------
    cdef int grow(self) except -1:
        """Room for one more node in every array (the subclass grows its own)."""
        cdef long cap
        if self.nnodes < self.capacity:
            return 0
        cap = 1024 if self.capacity == 0 else 2 * self.capacity
        self.n = <int64_t*>grow_array(self.n, cap * sizeof(int64_t))
        self.acc = <double*>grow_array(self.acc, cap * self.width * sizeof(double))
        self.prior = <double*>grow_array(self.prior, cap * sizeof(double))
        self.bias = <double*>grow_array(self.bias, cap * sizeof(double))
        self.grow_more(cap)
        self.capacity = cap
        return 0

    cdef int grow_more(self, long cap) except -1:
        return 0

    cdef int32_t new_common(self) except -1:
        cdef long node
        self.grow()
        node = self.nnodes
        self.nnodes += 1
        self.n[node] = 0
        self.prior[node] = 0.0
        self.bias[node] = 0.0
        memset(&self.acc[node * self.width], 0, self.width * sizeof(double))
        return <int32_t>node

    cdef int push_path(self, long depth, int32_t node) except -1:
        if depth >= self.path_cap:
            self.path_cap *= 2
            self.path = <int32_t*>grow_array(self.path, self.path_cap * sizeof(int32_t))
        self.path[depth] = node
        return 0

    cdef void back_up(self, long length, const double* result) noexcept nogil:
        cdef long i
        cdef int j
        cdef double* a
        for i in range(length):
            self.n[self.path[i]] += 1
            a = &self.acc[self.path[i] * self.width]
            for j in range(self.width):
                a[j] += result[j]

    # -- positions -----------------------------------------------------------------------
    cdef int play(self, int64_t move, bint want_moves) except -1:
        """Play ``move`` on the scratch position; its next moves land in ``moves`` when
        wanted (``nmoves``), and otherwise in ``spare`` if the kernel lists them anyway;
        ``leaf_moves`` and ``nleaf`` (UNLISTED: none) say where, for a playout to start
        from them."""
        cdef int count = self.ops.play(self.scratch, self.cat, move,
                                       self.moves if want_moves else self.spare, want_moves)
        if count == -1:
            raise TreeError("the position outgrew the kernel's fixed bounds")
        if want_moves:
            self.nmoves = count
            self.leaf_moves = self.moves
        else:
            self.leaf_moves = self.spare
        self.nleaf = count
        return 0

    cdef int list_moves(self) except -1:
        cdef int count = self.ops.legal(self.scratch, self.cat, self.moves)
        if count < 0:
            raise TreeError("the position outgrew the kernel's fixed bounds")
        self.nmoves = count
        self.leaf_moves = self.moves
        self.nleaf = count
        return 0

    cdef int outcome(self, double* scores, double* shares) except -1:
        if self.ops.outcome(self.scratch, self.cat, scores, shares) < 0:
            raise TreeError("the position outgrew the kernel's fixed bounds")
        return 0

    cdef int heuristic_or_outcome(self, double* scores, double* shares) except -1:
        """The real outcome at the end, else engine.search.evaluate.heuristic_outcome."""
        if self.ops.current_player(self.scratch) == C_TERMINAL:
            return self.outcome(scores, shares)
        if self.ops.heuristic(self.scratch, self.cat, self.values8) < 0:
            raise TreeError("the position outgrew the kernel's fixed bounds")
        heuristic_outcome(self.values8, self.k, scores, shares)
        return 0

    cdef double prior_utility(self, int seat) except? -1.0:
        """engine.search.evaluate.prior_utility on the scratch position."""
        cdef int other
        cdef double rival
        cdef double row[24]
        if (self.ops.current_player(self.scratch) == C_TERMINAL or self.prior_util.solo
                or not self.prior_util.margin):
            self.heuristic_or_outcome(self.out_scores, self.out_shares)
            backup_values(&self.prior_util, self.out_scores, self.out_shares, row)
            return row[seat]
        if self.ops.heuristic(self.scratch, self.cat, self.values8) < 0:
            raise TreeError("the position outgrew the kernel's fixed bounds")
        rival = 0.0
        other = -1
        for j in range(self.k):
            if j != seat and (other < 0 or self.values8[j] > rival):
                rival = self.values8[j]
                other = j
        return logistic((rival - self.values8[seat]) / self.prior_util.scale)

    cdef double move_bias(self, int seat) except? -1.0:
        """engine.search.move_prior.move_bias on the scratch position."""
        return self.bias_of(self.scratch, seat, self.move_weights)

    cdef double bias_of(self, const char* position, int seat,
                        const double* weights) except? -1.0:
        """engine.search.move_prior.move_bias of ``position`` by the prior ``weights``
        (the same sums in the same order, so the same double as the Python tree)."""
        cdef int other, j
        cdef int n = self.ops.nfeatures
        cdef double total, logit
        for other in range(self.k):
            if self.ops.features(position, self.cat, other,
                                 &self.seat_features[other * n]) < 0:
                raise TreeError("the position outgrew the kernel's fixed bounds")
        logit = 0.0
        for j in range(n):
            if self.k > 1:
                total = 0.0
                for other in range(self.k):
                    if other != seat:
                        total += self.seat_features[other * n + j]
                logit += weights[j] * (self.seat_features[seat * n + j]
                                       - total / (self.k - 1))
            else:
                logit += weights[j] * self.seat_features[seat * n + j]
        if logit > LOGIT_LIMIT:
            logit = LOGIT_LIMIT
        elif logit < -LOGIT_LIMIT:
            logit = -LOGIT_LIMIT
        return exp(logit)

    cdef int evaluate(self) except -1:
        """Value the scratch position (not at the end) into ``result``, as the configured
        evaluator of engine.search.evaluate / engine.search.mast does."""
        cdef uint64_t seed = mt_bits64(&self.mt)
        cdef int err = 0
        cdef long recorded, i
        cdef long index, seat
        cdef double row[24]
        if self.leaf_kind == LEAF_ROLLOUT:
            self.ops.playout(self.scratch, self.cat, &seed, 0, &err, self.leaf_moves,
                             self.nleaf)
            if err:
                raise TreeError("playout reached a position without legal moves")
            self.outcome(self.out_scores, self.out_shares)
        elif self.leaf_kind == LEAF_TRUNCATED:
            self.ops.playout(self.scratch, self.cat, &seed, self.depth, &err,
                             self.leaf_moves, self.nleaf)
            if err:
                raise TreeError("playout reached a position without legal moves")
            self.heuristic_or_outcome(self.out_scores, self.out_shares)
        elif self.leaf_kind == LEAF_PRIOR:
            self.prior_playout(&seed)
            self.heuristic_or_outcome(self.out_scores, self.out_shares)
        elif self.leaf_kind == LEAF_LEARNED:
            if self.depth:
                self.ops.playout(self.scratch, self.cat, &seed, self.depth, &err,
                                 self.leaf_moves, self.nleaf)
                if err:
                    raise TreeError("playout reached a position without legal moves")
            if self.ops.current_player(self.scratch) == C_TERMINAL:
                self.outcome(self.out_scores, self.out_shares)
            else:
                self.learned_values(self.values8)
                heuristic_outcome(self.values8, self.k, self.out_scores, self.out_shares)
        else:
            recorded = self.ops.guided_playout(self.scratch, self.cat, &seed, self.mast_values,
                                               self.epsilon, self.mast_trace,
                                               self.mast_capacity, self.depth, &err)
            if err:
                raise TreeError("playout reached a position without legal moves")
            if self.weights != NULL and self.ops.current_player(self.scratch) != C_TERMINAL:
                self.learned_values(self.values8)
                heuristic_outcome(self.values8, self.k, self.out_scores, self.out_shares)
            else:
                self.heuristic_or_outcome(self.out_scores, self.out_shares)
            if recorded:
                backup_values(&self.mast_util, self.out_scores, self.out_shares, row)
                for i in range(recorded):
                    index = self.mast_trace[i]
                    seat = index >> MOVE_SLOT_BITS
                    self.mast_counts[index] += 1.0
                    self.mast_values[index] += ((row[seat] - self.mast_values[index])
                                                / self.mast_counts[index])
        backup_values(&self.util, self.out_scores, self.out_shares, self.result)
        return 0

    cdef int prior_playout(self, uint64_t* seed) except -1:
        """engine.search.move_prior.PriorPlayoutEvaluator's moves on the scratch position,
        drawn from ``seed`` as its PlayoutRng draws them."""
        cdef long played = 0
        cdef int p, count, i, index
        cdef double total, target
        while played < self.depth:
            p = self.ops.current_player(self.scratch)
            if p == C_TERMINAL:
                return 0
            if p < 0:
                raise TreeError("the compiled search has no chance nodes")
            count = self.ops.legal(self.scratch, self.cat, self.playout_moves)
            if count <= 0:
                raise TreeError("playout reached a position without legal moves"
                                if count == 0 else "the position outgrew the kernel's bounds")
            if unit_draw(seed) < self.epsilon:
                index = <int>(furnace_splitmix64(seed) % <uint64_t>count)
            else:
                total = 0.0
                for i in range(count):
                    memcpy(self.playout_copy, self.scratch, self.ops.state_size)
                    if self.ops.play(self.playout_copy, self.cat, self.playout_moves[i],
                                     self.playout_spare, False) == -1:
                        raise TreeError("the position outgrew the kernel's fixed bounds")
                    total += self.bias_of(self.playout_copy, p, self.playout_weights)
                    self.playout_cumulative[i] = total
                target = unit_draw(seed) * total
                index = 0
                while index < count - 1 and target >= self.playout_cumulative[index]:
                    index += 1
            if self.ops.play(self.scratch, self.cat, self.playout_moves[index],
                             self.playout_spare, False) == -1:
                raise TreeError("the position outgrew the kernel's fixed bounds")
            played += 1
        return 0

    cdef int learned_values(self, double* out) except -1:
        """engine.search.evaluate.learned_scores of the scratch position: the model's
        values of its features, moved to the model's level of the seats' mean score, or
        without one to its heuristic's mean (same sums, same order, so the same doubles
        as the Python tree)."""
        cdef int seat, j
        cdef double value, level, mean_value, shift
        cdef double levels[8]
        cdef int n = self.ops.nfeatures
        if self.level_weights != NULL:
            for j in range(n):
                self.feature_sums[j] = 0.0
        for seat in range(self.k):
            if self.ops.features(self.scratch, self.cat, seat, self.feature_row) < 0:
                raise TreeError("the position outgrew the kernel's fixed bounds")
            value = 0.0
            for j in range(n):
                value += self.weights[j] * self.feature_row[j]
            out[seat] = value
            if self.level_weights != NULL:
                for j in range(n):
                    self.feature_sums[j] += self.feature_row[j]
        level = 0.0
        mean_value = 0.0
        for seat in range(self.k):
            mean_value += out[seat]
        if self.level_weights != NULL:
            for j in range(n):
                level += self.level_weights[j] * (self.feature_sums[j] / self.k)
            level += self.level_weights[n]
            shift = level - mean_value / self.k
        else:
            if self.ops.heuristic(self.scratch, self.cat, levels) < 0:
                raise TreeError("the position outgrew the kernel's fixed bounds")
            for seat in range(self.k):
                level += levels[seat]
            shift = level / self.k - mean_value / self.k
        for seat in range(self.k):
            out[seat] = out[seat] + shift
        return 0

    # -- statistics ------------------------------------------------------------------------
    cdef list totals(self, int32_t node):
        """A node's sums of win shares and scores (its utilities left out)."""
        cdef double* a = &self.acc[node * self.width]
        return [a[j] for j in range(self.k, self.width)]

    cdef bint better(self, int32_t kid, int mover, int64_t move, int32_t best,
                     int64_t best_move, int best_mover):
        """engine.search.analysis.best_key: more visits, then the higher mean win share
        of the mover, then the lower move."""
        cdef double mean, best_mean
        if best < 0:
            return True
        if self.n[kid] != self.n[best]:
            return self.n[kid] > self.n[best]
        mean = self.acc[kid * self.width + self.k + mover] / self.n[kid] if mover >= 0 \
            else 0.0
        best_mean = (self.acc[best * self.width + self.k + best_mover] / self.n[best]
                     if best_mover >= 0 else 0.0)
        if mean != best_mean:
            return mean > best_mean
        return move < best_move

    @property
    def nodes(self) -> int:
        """Nodes in the tree."""
        return self.nnodes

    @property
    def node_bytes(self) -> int:
        """Bytes the node arrays hold."""
        return self.capacity * (sizeof(int64_t) + sizeof(double) * (self.width + 2))


cdef inline double unit_draw(uint64_t* seed) noexcept nogil:
    """engine.playout_rng.PlayoutRng.unit: a double in [0, 1) from the top 53 bits."""
    return <double>(furnace_splitmix64(seed) >> 11) * (1.0 / 9007199254740992.0)


cdef void* grow_array(void* old, size_t size) except NULL:
    cdef void* grown = realloc(old, size)
    if grown == NULL:
        raise MemoryError("the search tree ran out of memory")
    return grown


cdef int set_utility(Utility* u, int k, object margin_scale, object solo) except -1:
    u.k = k
    u.margin = margin_scale is not None
    u.scale = float(margin_scale) if margin_scale is not None else 0.0
    u.solo = solo is not None
    if solo is not None:
        u.target = float(solo[0])
        u.solo_scale = float(solo[1])
    return 0


# -- MCTS ---------------------------------------------------------------------------------------

cdef class CompiledMCTS(CoreTree):
    """``engine.search.mcts.PythonMCTSTree``'s twin (decision nodes only: a position at
    CHANCE raises TreeError)."""

    cdef int32_t* player
    cdef int32_t* nuntried
    cdef int32_t* nkids
    cdef int64_t* offset        # into the move pool: untried moves, then child moves
    cdef int32_t* nlegal
    cdef int64_t* value_at      # into ``values``: a finished position's backed-up vector
    cdef int64_t* pool
    cdef int32_t* kids
    cdef long pool_used
    cdef long pool_cap
    cdef double* values
    cdef long values_used
    cdef long values_cap

    def __dealloc__(self):
        free(self.player)
        free(self.nuntried)
        free(self.nkids)
        free(self.offset)
        free(self.nlegal)
        free(self.value_at)
        free(self.pool)
        free(self.kids)
        free(self.values)

    def __init__(self, ops_capsule, state, rng, settings, leaf):
        self.setup(ops_capsule, state, rng, settings, leaf)
        root_moves = settings.root_moves
        memcpy(self.scratch, self.root_struct, self.ops.state_size)
        self.list_moves()
        root = self.new_node()
        if root_moves is not None:
            self.nuntried[root] = 0
            for move in root_moves:
                self.pool[self.offset[root] + self.nuntried[root]] = move
                self.nuntried[root] += 1

    cdef int grow_more(self, long cap) except -1:
        self.player = <int32_t*>grow_array(self.player, cap * sizeof(int32_t))
        self.nuntried = <int32_t*>grow_array(self.nuntried, cap * sizeof(int32_t))
        self.nkids = <int32_t*>grow_array(self.nkids, cap * sizeof(int32_t))
        self.offset = <int64_t*>grow_array(self.offset, cap * sizeof(int64_t))
        self.nlegal = <int32_t*>grow_array(self.nlegal, cap * sizeof(int32_t))
        self.value_at = <int64_t*>grow_array(self.value_at, cap * sizeof(int64_t))
        return 0

    cdef int32_t new_node(self) except -1:
        """The node of the scratch position, whose legal moves are in ``moves``."""
        cdef int32_t node = self.new_common()
        cdef int p = self.ops.current_player(self.scratch)
        cdef long need, cap
        cdef int i
        self.player[node] = p
        self.nuntried[node] = 0
        self.nkids[node] = 0
        self.nlegal[node] = 0
        self.offset[node] = 0
        self.value_at[node] = -1
        if p >= 0:
            if self.nmoves == 0:
                raise TreeError(f"seat {p} is to move but has no legal moves")
            need = self.pool_used + self.nmoves
            if need > self.pool_cap:
                cap = self.pool_cap if self.pool_cap else 4096
                while cap < need:
                    cap *= 2
                self.pool = <int64_t*>grow_array(self.pool, 2 * cap * sizeof(int64_t))
                self.kids = <int32_t*>grow_array(self.kids, cap * sizeof(int32_t))
                self.pool_cap = cap
            # pool[2 * off ...]: untried moves, then (from 2 * off + nlegal) child moves
            self.offset[node] = self.pool_used
            self.nlegal[node] = self.nmoves
            for i in range(self.nmoves):
                self.pool[2 * self.pool_used + i] = self.moves[i]
            self.nuntried[node] = self.nmoves
            self.pool_used = need
            self.offset[node] *= 2
        elif p == C_TERMINAL:
            if self.values_used + self.width > self.values_cap:
                self.values_cap = 4096 if self.values_cap == 0 else 2 * self.values_cap
                while self.values_cap < self.values_used + self.width:
                    self.values_cap *= 2
                self.values = <double*>grow_array(self.values,
                                                  self.values_cap * sizeof(double))
            self.value_at[node] = self.values_used
            self.outcome(self.out_scores, self.out_shares)
            backup_values(&self.util, self.out_scores, self.out_shares,
                          &self.values[self.values_used])
            self.values_used += self.width
        else:
            raise TreeError("the compiled search has no chance nodes")
        return node

    cdef inline int64_t child_move(self, int32_t node, int i) noexcept nogil:
        return self.pool[self.offset[node] + self.nlegal[node] + i]

    cdef inline int32_t child(self, int32_t node, int i) noexcept nogil:
        return self.kids[self.offset[node] // 2 + i]

    def iterate(self):
        """One iteration (engine.search.mcts.PythonMCTSTree.iterate)."""
        cdef int32_t node = 0
        cdef int32_t best, kid, created
        cdef long depth = 1
        cdef int p, i, nu, count
        cdef int64_t move, best_move
        cdef double explore, value, best_value, cn, total
        cdef double weight = self.prior_weight
        cdef double move_weight = self.move_weight
        cdef int64_t* untried
        memcpy(self.scratch, self.root_struct, self.ops.state_size)
        self.path[0] = 0
        while True:
            p = self.player[node]
            if p >= 0:
                nu = self.nuntried[node]
                if nu:
                    untried = &self.pool[self.offset[node]]
                    i = <int>(mt_random(&self.mt) * nu)
                    move = untried[i]
                    untried[i] = untried[nu - 1]
                    self.nuntried[node] = nu - 1
                    self.play(move, True)
                    created = self.new_node()
                    if weight:
                        self.prior[created] = self.prior_utility(p)
                    if move_weight:
                        self.bias[created] = self.move_bias(p)
                    count = self.nkids[node]
                    self.pool[self.offset[node] + self.nlegal[node] + count] = move
                    self.kids[self.offset[node] // 2 + count] = created
                    self.nkids[node] = count + 1
                    node = created
                    self.push_path(depth, node)
                    depth += 1
                    break
                explore = self.c * sqrt(log(<double>self.n[node]))
                best = node
                best_move = 0
                best_value = -1e300
                count = self.nkids[node]
                if move_weight:
                    total = 0.0
                    for i in range(count):
                        total += self.bias[self.child(node, i)]
                    for i in range(count):
                        kid = self.child(node, i)
                        cn = <double>self.n[kid]
                        if weight:
                            value = ((self.acc[kid * self.width + p]
                                      + weight * self.prior[kid])
                                     / (cn + weight) + explore / sqrt(cn))
                        else:
                            value = self.acc[kid * self.width + p] / cn + explore / sqrt(cn)
                        value = value + move_weight * (self.bias[kid] / total) / (cn + 1.0)
                        if value > best_value:
                            best_value = value
                            best = kid
                            best_move = self.child_move(node, i)
                elif weight:
                    for i in range(count):
                        kid = self.child(node, i)
                        cn = <double>self.n[kid]
                        value = ((self.acc[kid * self.width + p] + weight * self.prior[kid])
                                 / (cn + weight) + explore / sqrt(cn))
                        if value > best_value:
                            best_value = value
                            best = kid
                            best_move = self.child_move(node, i)
                else:
                    for i in range(count):
                        kid = self.child(node, i)
                        cn = <double>self.n[kid]
                        value = self.acc[kid * self.width + p] / cn + explore / sqrt(cn)
                        if value > best_value:
                            best_value = value
                            best = kid
                            best_move = self.child_move(node, i)
                self.play(best_move, False)
                node = best
                self.push_path(depth, node)
                depth += 1
            else:
                break
        if self.player[node] == C_TERMINAL:
            self.back_up(depth, &self.values[self.value_at[node]])
        else:
            self.evaluate()
            self.back_up(depth, self.result)

    # -- results ---------------------------------------------------------------------------
    def root_statistics(self):
        """(root visits, root totals, [(move, visits, totals)] of the visited children in
        creation order)."""
        rows = []
        for i in range(self.nkids[0]):
            kid = self.child(0, i)
            if self.n[kid]:
                rows.append((self.child_move(0, i), self.n[kid], self.totals(kid)))
        return self.n[0], self.totals(0), rows

    def principal_variation(self, int max_length=64):
        """Moves following the best children (engine.search.analysis.best_key)."""
        pv = []
        cdef int32_t node = 0
        cdef int32_t best, kid
        cdef int64_t best_move, move
        cdef int i, p
        while len(pv) < max_length:
            p = self.player[node]
            best = -1
            best_move = 0
            for i in range(self.nkids[node] if p >= 0 else 0):
                kid = self.child(node, i)
                if self.n[kid] == 0:
                    continue
                move = self.child_move(node, i)
                if self.better(kid, p, move, best, best_move, p):
                    best = kid
                    best_move = move
            if best < 0:
                break
            pv.append(best_move)
            node = best
        return pv


# -- ISMCTS -------------------------------------------------------------------------------------

cdef class CompiledISMCTS(CoreTree):
    """``engine.search.ismcts.PythonISMCTSTree``'s twin (decision nodes only)."""

    cdef int observer
    cdef int32_t* parent
    cdef int32_t* mover
    cdef int64_t* avail
    cdef int64_t* move_of
    cdef int32_t* first_kid
    cdef int32_t* last_kid
    cdef int32_t* next_sibling
    cdef unsigned char* context     # text_context_bytes per node
    # (parent, move) -> child: open addressing, linear probing
    cdef int32_t* slots
    cdef long nslots
    cdef int64_t* root_allowed      # the moves ``root_moves`` allows, or NULL
    cdef int nroot_allowed
    cdef int64_t* root_list         # the root's legal moves, the same in every world
    cdef int nroot

    def __dealloc__(self):
        free(self.parent)
        free(self.mover)
        free(self.avail)
        free(self.move_of)
        free(self.first_kid)
        free(self.last_kid)
        free(self.next_sibling)
        free(self.context)
        free(self.slots)
        free(self.root_allowed)
        free(self.root_list)

    def __init__(self, ops_capsule, state, rng, settings, leaf):
        self.setup(ops_capsule, state, rng, settings, leaf)
        self.observer = settings.observer
        root_moves = settings.root_moves
        self.nroot_allowed = -1
        if root_moves is not None:
            moves = list(root_moves)
            self.root_allowed = <int64_t*>malloc(max(1, len(moves)) * sizeof(int64_t))
            if self.root_allowed == NULL:
                raise MemoryError()
            for i, move in enumerate(moves):
                self.root_allowed[i] = move
            self.nroot_allowed = len(moves)
        self.nslots = 4096
        self.slots = <int32_t*>malloc(self.nslots * sizeof(int32_t))
        if self.slots == NULL:
            raise MemoryError()
        memset(self.slots, 0xFF, self.nslots * sizeof(int32_t))
        # The observer knows the root's moves (it moves, or knows the mover's moves), so
        # every determinization has these very moves, in this order (the reference
        # generates them from what the observer sees): listed once, not per iteration.
        memcpy(self.scratch, self.root_struct, self.ops.state_size)
        self.list_moves()
        self.nroot = self.nmoves
        self.root_list = <int64_t*>malloc(max(1, self.nroot) * sizeof(int64_t))
        if self.root_list == NULL:
            raise MemoryError()
        memcpy(self.root_list, self.moves, self.nroot * sizeof(int64_t))
        self.new_node(-1, -1, -1)

    cdef int grow_more(self, long cap) except -1:
        cdef int size = self.ops.text_context_bytes
        self.parent = <int32_t*>grow_array(self.parent, cap * sizeof(int32_t))
        self.mover = <int32_t*>grow_array(self.mover, cap * sizeof(int32_t))
        self.avail = <int64_t*>grow_array(self.avail, cap * sizeof(int64_t))
        self.move_of = <int64_t*>grow_array(self.move_of, cap * sizeof(int64_t))
        self.first_kid = <int32_t*>grow_array(self.first_kid, cap * sizeof(int32_t))
        self.last_kid = <int32_t*>grow_array(self.last_kid, cap * sizeof(int32_t))
        self.next_sibling = <int32_t*>grow_array(self.next_sibling, cap * sizeof(int32_t))
        if size:
            self.context = <unsigned char*>grow_array(self.context, cap * size)
        return 0

    cdef int32_t new_node(self, int32_t parent, int64_t move, int mover) except -1:
        cdef int32_t node = self.new_common()
        self.parent[node] = parent
        self.mover[node] = mover
        self.avail[node] = 0
        self.move_of[node] = move
        self.first_kid[node] = -1
        self.last_kid[node] = -1
        self.next_sibling[node] = -1
        if parent >= 0:
            if self.last_kid[parent] < 0:
                self.first_kid[parent] = node
            else:
                self.next_sibling[self.last_kid[parent]] = node
            self.last_kid[parent] = node
            self.insert(node)
        return node

    # -- the (parent, move) table ----------------------------------------------------------
    cdef inline uint64_t slot_of(self, int32_t parent, int64_t move) noexcept nogil:
        cdef uint64_t h = (<uint64_t>(parent + 1) * 0x9E3779B97F4A7C15ULL) ^ <uint64_t>move
        h ^= h >> 31
        h *= 0xBF58476D1CE4E5B9ULL
        h ^= h >> 29
        return h & <uint64_t>(self.nslots - 1)

    cdef inline int32_t find(self, int32_t parent, int64_t move) noexcept nogil:
        cdef uint64_t i = self.slot_of(parent, move)
        cdef int32_t node
        while True:
            node = self.slots[i]
            if node < 0:
                return -1
            if self.move_of[node] == move and self.parent[node] == parent:
                return node
            i = (i + 1) & <uint64_t>(self.nslots - 1)

    cdef int insert(self, int32_t node) except -1:
        cdef uint64_t i
        if 2 * self.nnodes > self.nslots:
            self.rehash()
        i = self.slot_of(self.parent[node], self.move_of[node])
        while self.slots[i] >= 0:
            i = (i + 1) & <uint64_t>(self.nslots - 1)
        self.slots[i] = node
        return 0

    cdef int rehash(self) except -1:
        cdef long old_n = self.nslots
        cdef int32_t* old = self.slots
        cdef long i
        cdef uint64_t j
        cdef int32_t node
        self.slots = <int32_t*>malloc(2 * old_n * sizeof(int32_t))
        if self.slots == NULL:
            self.slots = old
            raise MemoryError("the search tree ran out of memory")
        self.nslots = 2 * old_n
        memset(self.slots, 0xFF, self.nslots * sizeof(int32_t))
        for i in range(old_n):
            node = old[i]
            if node >= 0:
                j = self.slot_of(self.parent[node], self.move_of[node])
                while self.slots[j] >= 0:
                    j = (j + 1) & <uint64_t>(self.nslots - 1)
                self.slots[j] = node
        free(old)
        return 0

    cdef bint allowed_at_root(self, int64_t move) noexcept nogil:
        cdef int i
        for i in range(self.nroot_allowed):
            if self.root_allowed[i] == move:
                return True
        return False

    # -- the iteration -----------------------------------------------------------------------
    def iterate(self):
        """One iteration (engine.search.ismcts.PythonISMCTSTree.iterate) on a fresh
        determinization for the observer."""
        cdef int32_t node = 0
        cdef int32_t best, kid, created
        cdef long depth = 1
        cdef int p, i, nlegal, nu, size = self.ops.text_context_bytes
        cdef int64_t move
        cdef double value, best_value, cn, total
        cdef double weight = self.prior_weight
        cdef double move_weight = self.move_weight
        cdef double c = self.c
        cdef int64_t* legal = self.moves
        cdef int32_t* kid_of = self.kid_of
        cdef int64_t* untried = self.untried_tmp
        memcpy(self.scratch, self.root_struct, self.ops.state_size)
        self.ops.determinize(self.scratch, self.cat, self.observer, &self.words)
        memcpy(self.moves, self.root_list, self.nroot * sizeof(int64_t))
        self.nmoves = self.nroot
        self.path[0] = 0
        while True:
            p = self.ops.current_player(self.scratch)
            if p >= 0:
                nlegal = self.nmoves
                if node == 0 and self.nroot_allowed >= 0:
                    nu = 0
                    for i in range(nlegal):
                        if self.allowed_at_root(legal[i]):
                            legal[nu] = legal[i]
                            nu += 1
                    nlegal = nu
                nu = 0
                for i in range(nlegal):
                    kid = self.find(node, legal[i])
                    kid_of[i] = kid
                    if kid < 0:
                        untried[nu] = legal[i]
                        nu += 1
                    else:
                        self.avail[kid] += 1
                if nu:
                    move = untried[<int>(mt_random(&self.mt) * nu)]
                    created = self.new_node(node, move, p)
                    if size:
                        if self.ops.text_context(self.scratch, self.cat, move,
                                                 &self.context[created * size]) < 0:
                            raise TreeError(f"{move} is no move of this game")
                    self.avail[created] = 1
                    self.play(move, False)
                    if weight:
                        self.prior[created] = self.prior_utility(p)
                    if move_weight:
                        self.bias[created] = self.move_bias(p)
                    self.push_path(depth, created)
                    depth += 1
                    break
                # Availability-aware UCB for the seat to move in this determinization.
                best = node
                best_value = -1e300
                total = 0.0
                if move_weight:
                    for i in range(nlegal):
                        total += self.bias[kid_of[i]]
                for i in range(nlegal):
                    kid = kid_of[i]
                    cn = <double>self.n[kid]
                    if weight:
                        value = ((self.acc[kid * self.width + p] + weight * self.prior[kid])
                                 / (cn + weight)
                                 + c * sqrt(log(<double>self.avail[kid]) / cn))
                    else:
                        value = (self.acc[kid * self.width + p] / cn
                                 + c * sqrt(log(<double>self.avail[kid]) / cn))
                    if move_weight:
                        value = value + move_weight * (self.bias[kid] / total) / (cn + 1.0)
                    if value > best_value:
                        best_value = value
                        best = kid
                self.play(self.move_of[best], True)
                node = best
                self.push_path(depth, node)
                depth += 1
            elif p == C_CHANCE:
                raise TreeError("the compiled search has no chance nodes")
            else:
                break
        if self.ops.current_player(self.scratch) == C_TERMINAL:
            self.outcome(self.out_scores, self.out_shares)
            backup_values(&self.util, self.out_scores, self.out_shares, self.result)
        else:
            self.evaluate()
        self.back_up(depth, self.result)

    # -- results ---------------------------------------------------------------------------
    def root_statistics(self):
        """As ``CompiledMCTS.root_statistics``: the children are the root's sibling list."""
        rows = []
        kid = self.first_kid[0]
        while kid >= 0:
            if self.n[kid]:
                rows.append((self.move_of[kid], self.n[kid], self.totals(kid)))
            kid = self.next_sibling[kid]
        return self.n[0], self.totals(0), rows

    cdef int32_t best_child(self, int32_t node):
        cdef int32_t best = -1
        cdef int32_t kid = self.first_kid[node]
        while kid >= 0:
            if self.n[kid] and self.better(kid, self.mover[kid], self.move_of[kid], best,
                                           self.move_of[best] if best >= 0 else 0,
                                           self.mover[best] if best >= 0 else 0):
                best = kid
            kid = self.next_sibling[kid]
        return best

    def principal_variation(self, int max_length=64):
        """[(move, text context, mover)] along the best children (best_key); the context
        is None for a kernel whose move texts need none."""
        cdef int size = self.ops.text_context_bytes
        pv = []
        cdef int32_t node = self.best_child(0)
        while node >= 0 and len(pv) < max_length:
            pv.append((self.move_of[node],
                       (<char*>&self.context[node * size])[:size] if size else None,
                       self.mover[node]))
            node = self.best_child(node)
        return pv

    def child_context(self, move):
        """The text context of the root's child for ``move`` (None without contexts)."""
        cdef int size = self.ops.text_context_bytes
        cdef int32_t kid = self.find(0, move)
        if kid < 0:
            raise KeyError(move)
        return (<char*>&self.context[kid * size])[:size] if size else None

    def text_in_context(self, move, context):
        """The text of ``move`` where a node's ``context`` was recorded (without contexts,
        the kernel's text of the move alone)."""
        if context is None:
            return self.root_state.move_to_text(move)
        return self.root_state.move_text_in_context(move, context)

    def availability(self, *moves):
        """``(n, avail, parent_n)`` of the node reached by ``moves`` (KeyError if none)."""
        cdef int32_t node = 0
        cdef int32_t parent = 0
        for move in moves:
            parent = node
            node = self.find(node, move)
            if node < 0:
                raise KeyError(move)
        return self.n[node], self.avail[node], self.n[parent]

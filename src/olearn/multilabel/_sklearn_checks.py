"""scikit-learn's tags and expected check failures of a multilabel learner (y: a set of relevant labels per row)."""


class MultilabelChecks:
    """The scikit-learn conformance of :class:`~olearn.multilabel.PAMultilabel`."""

    def __sklearn_tags__(self):
        # y is a set of relevant labels per row (or an indicator matrix), and so are the predictions
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def _expected_failed_checks(self):
        # scikit-learn makes the y of its generic checks, for an estimator without single-output
        # targets, a column of class numbers (multiclass-multioutput); its multilabel checks run
        column = (
            "y of a multilabel learner is one set of relevant labels per row (label collections, or a 0/1 indicator "
            "matrix); the check gives a column of class numbers 0, 1, 2 (scikit-learn's multiclass-multioutput "
            "form), which is neither, and is refused"
        )
        single = (
            "the check gives a 1-d y of single labels, which a multilabel learner refuses rather than guess whether "
            "each entry is one label or a collection (one label per row is written [label])"
        )
        lists = (
            "a list of lists is read as label collections ([[1, 3], [2]]: olearn's documented form, as "
            "load_libsvm(multilabel=True) gives it); only a 2-d array or a sparse matrix is an indicator matrix, "
            "so the check's list of 0/1 lists names other labels than its indicator array"
        )
        checks = dict.fromkeys(
            ["check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
             "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
             "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_dtype_object",
             "check_estimator_sparse_tag", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
             "check_f_contiguous_array_estimator", "check_classifier_data_not_an_array",
             "check_estimators_partial_fit_n_features", "check_classifiers_train",
             "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_fit2d_1feature",
             "check_dict_unchanged", "check_fit2d_predict1d", "check_sample_weights_not_an_array",
             "check_sample_weights_list", "check_sample_weights_pandas_series", "check_sample_weights_shape",
             "check_sample_weights_not_overwritten",
             "check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data",
             "check_non_transformer_estimators_n_iter"],
            column,
        )
        checks.update(dict.fromkeys(
            ["check_classifiers_one_label", "check_classifiers_one_label_sample_weights", "check_classifiers_classes",
             "check_classifiers_regression_target"],
            single,
        ))
        checks["check_classifiers_multilabel_representation_invariance"] = lists
        return checks

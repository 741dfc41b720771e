package dev.bellows.eval;

import tools.jackson.databind.JsonNode;

/**
 * Makes the evaluator of one {@code expect} key from its value in a case, when the dataset is
 * read: a value it cannot use fails the whole dataset before anything runs. Register custom
 * keys with {@link DatasetReader#expectation(String, ExpectationFactory)}.
 */
@FunctionalInterface
public interface ExpectationFactory {

    /**
     * @param spec the key's value in the case; read-only
     * @return the evaluator, or null when the value asks for no check ({@code "no_tool_errors": false})
     * @throws ExpectationException naming the field inside {@code spec} and the problem
     */
    Evaluator create(JsonNode spec) throws ExpectationException;
}

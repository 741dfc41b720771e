package dev.bellows.eval;

import dev.bellows.provider.TokenUsage;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * What a model costs: its input and its output tokens, each per million, in a currency of your
 * choice (the report's costs are in it). With prices, each run's cost is its tokens at the
 * prices of the models it called, its sub-agents' included; a run that called a model without
 * a price has no cost.
 *
 * @param inputPerMillion  the price of a million input (prompt) tokens
 * @param outputPerMillion the price of a million output (completion) tokens
 */
public record Price(double inputPerMillion, double outputPerMillion) {

    public Price {
        if (!(inputPerMillion >= 0) || !(outputPerMillion >= 0) || Double.isInfinite(inputPerMillion)
                || Double.isInfinite(outputPerMillion)) {
            throw new IllegalArgumentException("a price must be a number of at least 0, got input " + inputPerMillion
                    + ", output " + outputPerMillion);
        }
    }

    /** What {@code usage} costs at this price. */
    public double cost(TokenUsage usage) {
        return usage.inputTokens() / 1e6 * inputPerMillion + usage.outputTokens() / 1e6 * outputPerMillion;
    }

    /**
     * Prices by model from JSON: {@code {"gpt-4.1-mini": {"input": 0.4, "output": 1.6}, ...}}
     * (per million tokens), as a config file's {@code "prices"} gives them.
     *
     * @throws IllegalArgumentException naming the model and the field, when the JSON is not that
     */
    public static Map<String, Price> read(JsonNode prices) {
        if (prices == null || !prices.isObject()) {
            throw new IllegalArgumentException("must be an object of models, e.g. {\"gpt-4.1-mini\": {\"input\": 0.4,"
                    + " \"output\": 1.6}} (per million tokens)");
        }
        Map<String, Price> read = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> model : prices.properties()) {
            JsonNode price = model.getValue();
            if (!price.isObject()) {
                throw new IllegalArgumentException(model.getKey() + ": must be {\"input\": N, \"output\": N} (per million tokens)");
            }
            for (String field : price.propertyNames()) {
                if (!field.equals("input") && !field.equals("output")) {
                    throw new IllegalArgumentException(model.getKey() + "." + field + ": unknown field (input, output)");
                }
            }
            read.put(model.getKey(), new Price(number(price, model.getKey(), "input"), number(price, model.getKey(), "output")));
        }
        return Map.copyOf(read);
    }

    private static double number(JsonNode price, String model, String field) {
        JsonNode value = price.get(field);
        if (value == null || !value.isNumber() || !(value.asDouble() >= 0) || Double.isInfinite(value.asDouble())) {
            throw new IllegalArgumentException(model + "." + field + ": must be a number of at least 0 (the price of a"
                    + " million " + field + " tokens)");
        }
        return value.asDouble();
    }
}

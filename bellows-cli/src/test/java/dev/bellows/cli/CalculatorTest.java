package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.tool.InvalidArgumentsException;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CalculatorTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '=', value = {
            "2 + 3 * 4            = 14",
            "2 * 3 + 4 * 5        = 26",
            "10 - 4 - 3           = 3",
            "8 / 4 / 2            = 1",
            "1 - 2 * 3            = -5",
            "20 / 4 * 5           = 25",
            "7 / 2                = 3.5"})
    void multiplicationAndDivisionBindTighterAndEverythingGroupsFromTheLeft(String expression, String value)
            throws ToolException {
        assertThat(Calculator.evaluate(expression)).isEqualTo(value);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '=', value = {
            "(2 + 3) * 4          = 20",
            "2 * (3 + 4) * 5      = 70",
            "((1 + 2) * (3 - 1))  = 6",
            "-(2 + 3) * 2         = -10",
            "-  -4                = 4",
            "+5 - -5              = 10",
            "(120 / 150) * 60     = 48",
            "120 / 150 * 60       = 48",
            "(((7)))              = 7"})
    void parenthesesAndSigns(String expression, String value) throws ToolException {
        assertThat(Calculator.evaluate(expression)).isEqualTo(value);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '=', value = {
            "0.1 + 0.2            = 0.3",
            "1 / 3                = 0.3333333333333333",
            "2.50 * 4             = 10",
            "1000000 * 1000000    = 1000000000000",
            "3 - 3                = 0",
            ".5 + 1.              = 1.5"})
    void decimalsAreExactExceptForDivisionAndHaveNoTrailingZeros(String expression, String value)
            throws ToolException {
        assertThat(Calculator.evaluate(expression)).isEqualTo(value);
    }

    @Test
    void divisionByZeroIsAMessageForTheModelNamingWhere() {
        assertThatThrownBy(() -> Calculator.evaluate("1 / (2 - 2)"))
                .isInstanceOf(ToolException.class)
                .hasMessage("division by zero: the divisor after \"/\" at position 3 of \"1 / (2 - 2)\" is 0");
    }

    @Test
    void theToolReportsDivisionByZeroAsAToolException() {
        var arguments = JsonNodeFactory.instance.objectNode().put("expression", "5 / 0");
        assertThatThrownBy(() -> DemoTools.CALCULATOR.call(ToolContext.of("local", "calculator"), arguments))
                .isInstanceOf(ToolException.class)
                .hasMessageStartingWith("division by zero");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "120 / 150 × 60 | unexpected \"×\" at position 11 of \"120 / 150 × 60\": write * to multiply (the calculator knows numbers, + - * / and parentheses)",
            "3 x 4          | unexpected \"x\" at position 3 of \"3 x 4\": write * to multiply",
            "8 ÷ 2          | write / to divide",
            "2^3            | powers are not supported",
            "1,000 + 1      | write decimals with a point",
            "2 ** 3         | unexpected \"*\" at position 4 of \"2 ** 3\": expected a number, \"(\" or a sign",
            "2 +            | \"2 +\" ends too early: expected a number, \"(\" or a sign at the end",
            "(1 + 2         | missing \")\" for the \"(\" at position 1 of \"(1 + 2\"",
            "(1 + 2 3)      | unexpected \"3\" at position 8 of \"(1 + 2 3)\": expected \")\" or an operator",
            "1 + 2)         | unexpected \")\" at position 6 of \"1 + 2)\": expected an operator (+ - * /) or the end",
            "abc            | unexpected \"a\" at position 1",
            "1..2           | not a number: \"1..2\" at position 1",
            "sqrt(4)        | unexpected \"s\" at position 1"})
    void badInputIsAToolExceptionThatSaysWhatAndWhere(String expression, String message) {
        assertThatThrownBy(() -> Calculator.evaluate(expression))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining(message);
    }

    @Test
    void anEmptyOrHugeExpressionIsRefused() {
        assertThatThrownBy(() -> Calculator.evaluate("  ")).isInstanceOf(ToolException.class)
                .hasMessageStartingWith("empty expression");
        assertThatThrownBy(() -> Calculator.evaluate("(".repeat(5000) + "1" + ")".repeat(5000)))
                .isInstanceOf(ToolException.class)
                .hasMessageStartingWith("expression too long");
    }

    @Test
    void aCallWithoutTheExpressionFailsTheSchemaCheckBeforeTheLambdaRuns() {
        var arguments = JsonNodeFactory.instance.objectNode().put("expr", "1 + 1");
        assertThatThrownBy(() -> DemoTools.CALCULATOR.call(ToolContext.of("local", "calculator"), arguments))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessageContaining("expression");
    }
}

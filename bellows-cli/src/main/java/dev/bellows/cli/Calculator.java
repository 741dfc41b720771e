package dev.bellows.cli;

import dev.bellows.tool.ToolException;
import java.math.BigDecimal;
import java.math.MathContext;

/**
 * Arithmetic for the demo's {@code calculator} tool: {@code + - * /}, unary signs and
 * parentheses over decimal numbers, by recursive descent. Exact for {@code + - *}; division
 * is rounded to 16 significant digits. The result has no trailing zeros ({@code 48}, not
 * {@code 48.000}).
 *
 * <p>Every mistake is a {@link ToolException} whose message says what is wrong and where
 * (positions from 1), written for the model to correct its expression.
 *
 * <pre>
 * expression := term (("+" | "-") term)*
 * term       := factor (("*" | "/") factor)*
 * factor     := ("+" | "-") factor | number | "(" expression ")"
 * </pre>
 */
final class Calculator {

    /** Longer expressions are refused: the recursion depth follows the nesting. */
    static final int MAX_LENGTH = 1000;
    private static final MathContext DIVISION = MathContext.DECIMAL64;

    private final String text;
    private int position;

    private Calculator(String text) {
        this.text = text;
    }

    /** The value of {@code expression}, as plain decimal text. */
    static String evaluate(String expression) throws ToolException {
        return format(value(expression));
    }

    static BigDecimal value(String expression) throws ToolException {
        if (expression.isBlank()) {
            throw new ToolException("empty expression: write one such as (120 / 150) * 60");
        }
        if (expression.length() > MAX_LENGTH) {
            throw new ToolException("expression too long: " + expression.length() + " characters, at most " + MAX_LENGTH);
        }
        Calculator calculator = new Calculator(expression);
        BigDecimal value = calculator.expression();
        calculator.skipSpaces();
        if (calculator.position < expression.length()) {
            throw calculator.unexpected("an operator (+ - * /) or the end");
        }
        return value;
    }

    static String format(BigDecimal value) {
        return value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
    }

    private BigDecimal expression() throws ToolException {
        BigDecimal value = term();
        while (true) {
            skipSpaces();
            if (accept('+')) {
                value = value.add(term());
            } else if (accept('-')) {
                value = value.subtract(term());
            } else {
                return value;
            }
        }
    }

    private BigDecimal term() throws ToolException {
        BigDecimal value = factor();
        while (true) {
            skipSpaces();
            int at = position;
            if (accept('*')) {
                value = value.multiply(factor());
            } else if (accept('/')) {
                BigDecimal divisor = factor();
                if (divisor.signum() == 0) {
                    throw new ToolException("division by zero: the divisor after \"/\" at position " + (at + 1)
                            + " of \"" + text + "\" is 0");
                }
                value = value.divide(divisor, DIVISION);
            } else {
                return value;
            }
        }
    }

    private BigDecimal factor() throws ToolException {
        skipSpaces();
        if (accept('-')) {
            return factor().negate();
        }
        if (accept('+')) {
            return factor();
        }
        if (accept('(')) {
            int open = position;
            BigDecimal value = expression();
            skipSpaces();
            if (!accept(')')) {
                if (position >= text.length()) {
                    throw new ToolException("missing \")\" for the \"(\" at position " + open + " of \"" + text + "\"");
                }
                throw unexpected("\")\" or an operator (+ - * /)");
            }
            return value;
        }
        return number();
    }

    private BigDecimal number() throws ToolException {
        int start = position;
        while (position < text.length() && (Character.isDigit(text.charAt(position)) && text.charAt(position) < 128
                || text.charAt(position) == '.')) {
            position++;
        }
        if (start == position) {
            throw unexpected("a number, \"(\" or a sign");
        }
        String digits = text.substring(start, position);
        try {
            return new BigDecimal(digits);
        } catch (NumberFormatException e) {
            throw new ToolException("not a number: \"" + digits + "\" at position " + (start + 1) + " of \"" + text + "\"");
        }
    }

    private ToolException unexpected(String expected) {
        if (position >= text.length()) {
            return new ToolException("\"" + text + "\" ends too early: expected " + expected + " at the end");
        }
        int codePoint = text.codePointAt(position);
        String found = new String(Character.toChars(codePoint));
        String hint = switch (codePoint) {
            case '\u00d7', 'x', 'X', '\u00b7', '\u22c5' -> "write * to multiply";
            case '\u00f7', ':' -> "write / to divide";
            case '^' -> "powers are not supported: multiply instead";
            case ',' -> "write decimals with a point, without thousands separators";
            default -> "expected " + expected;
        };
        return new ToolException("unexpected \"" + found + "\" at position " + (position + 1) + " of \"" + text
                + "\": " + hint + " (the calculator knows numbers, + - * / and parentheses)");
    }

    private boolean accept(char c) {
        if (position < text.length() && text.charAt(position) == c) {
            position++;
            return true;
        }
        return false;
    }

    private void skipSpaces() {
        while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
            position++;
        }
    }
}
